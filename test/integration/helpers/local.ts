/**
 * Integration-test helper: one in-memory local runtime per test file, on a random port.
 *
 *     const rt = useLocalRuntime();
 *     it('creates a contact', async () => {
 *       const res = await rt.api('POST', '/contacts', { body: { email: 'a@example.org' } });
 *       expect(res.status).toBe(201);
 *       expect(res.body.email).toBe('a@example.org');
 *       await rt.drain();                 // wait for queue work the request started
 *       expect(await rt.mails({ to: 'a@example.org' })).toHaveLength(0);
 *     });
 *
 * `api` sends the seeded secret key unless told otherwise (`key: rt.publicKey`, any raw key, or
 * `key: null` for none). Queue retries and delays run fast (see `fastTimings`), and recurring
 * schedules only run when a test calls `rt.scheduler.runRecurring(name)`.
 */
import { afterAll, beforeAll } from 'vitest';
import { quietLogger } from '../../../shared/adapters/local/log';
import type { SinkMessage } from '../../../shared/adapters/local/mail-sink';
import {
  fastTimings,
  type LocalRuntime,
  type StartLocalOptions,
  startLocal,
} from '../../../shared/local/runtime';
import { type ApiOptions, type ApiResponse, callApi } from './api';

export { type ApiOptions, type ApiResponse, callApi, type Json } from './api';

export interface LocalTestRuntime {
  readonly url: string;
  readonly projectId: string;
  readonly secretKey: string;
  readonly publicKey: string;
  readonly senderDomain: string;
  readonly deps: LocalRuntime['deps'];
  readonly queue: LocalRuntime['queue'];
  readonly scheduler: LocalRuntime['scheduler'];
  readonly mailSink: LocalRuntime['mailSink'];
  /** The whole runtime, for anything not surfaced above. */
  readonly runtime: LocalRuntime;
  api(method: string, path: string, options?: ApiOptions): Promise<ApiResponse>;
  /** Messages the mail sink kept, newest first, optionally only those to one address. */
  mails(filter?: { to?: string }): Promise<SinkMessage[]>;
  /** Resolves when every queue is idle (nothing pending, delayed or in flight). */
  drain(options?: { timeoutMs?: number }): Promise<void>;
  /**
   * A second instance of every route group (fresh handlers, own gateway) over the same database,
   * as a second warm Lambda would be; `api` works as above. Stop it when done (the runtime's own
   * stop also does).
   */
  startAnotherInstance(): Promise<LocalTestInstance>;
}

export interface LocalTestInstance {
  readonly url: string;
  api(method: string, path: string, options?: ApiOptions): Promise<ApiResponse>;
  stop(): Promise<void>;
}

/** Starts a runtime before the file's tests and stops it after them. */
export function useLocalRuntime(options: StartLocalOptions = {}): LocalTestRuntime {
  let current: LocalRuntime | undefined;
  const rt = (): LocalRuntime => {
    if (!current)
      throw new Error('The local runtime is not started: use it inside tests or hooks, not at load time');
    return current;
  };

  beforeAll(async () => {
    current = await startLocal({
      port: 0,
      logger: quietLogger,
      timings: fastTimings,
      recurringSchedules: false,
      ...options,
    });
  });
  afterAll(async () => {
    await current?.stop();
    current = undefined;
  });

  return {
    get url() {
      return rt().url;
    },
    get projectId() {
      return rt().projectId;
    },
    get secretKey() {
      return rt().secretKey;
    },
    get publicKey() {
      return rt().publicKey;
    },
    get senderDomain() {
      return rt().senderDomain;
    },
    get deps() {
      return rt().deps;
    },
    get queue() {
      return rt().queue;
    },
    get scheduler() {
      return rt().scheduler;
    },
    get mailSink() {
      return rt().mailSink;
    },
    get runtime() {
      return rt();
    },
    api: (method, path, apiOptions = {}) => callApi(rt(), method, path, apiOptions),
    mails: async (filter = {}) => {
      const all = await rt().mailSink.list();
      const to = filter.to?.toLowerCase();
      return to === undefined ? all : all.filter((m) => m.to.some((address) => address.toLowerCase() === to));
    },
    // A bound on a hang, not a duration to meet: generous, for a machine others keep busy.
    drain: (drainOptions = {}) => rt().queue.drain({ timeoutMs: 30_000, ...drainOptions }),
    startAnotherInstance: async () => {
      const runtime = rt();
      const instance = await runtime.startInstance();
      return {
        url: instance.url,
        api: (method, path, apiOptions = {}) =>
          callApi({ url: instance.url, secretKey: runtime.secretKey }, method, path, apiOptions),
        stop: () => instance.stop(),
      };
    },
  };
}
