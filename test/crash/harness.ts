/**
 * Crash-tier harness: the local runtime as a real child process (test/crash/runtime-entry.ts) on a
 * data folder of the test's own, killed with SIGKILL in the middle of work and started again on
 * the same folder.
 *
 *     const crash = useCrashHarness();
 *     it('...', async () => {
 *       const dir = crash.dataDir();
 *       const first = await crash.start(dir);
 *       await first.api('POST', '/contacts', { body: { email: 'a@example.org' } });
 *       await first.kill();                 // SIGKILL, resolves once the process is gone
 *       const second = await crash.start(dir);
 *     });
 *
 * Every child runs with SESAME_REDELIVER_EACH_MESSAGE=1 (every queue message delivered once more
 * after it completes; a test's `env`, or the variable in the test's own environment, may say 0).
 * Every child still running is killed after each test and after the file; data folders are
 * removed after the file (kept when CRASH_KEEP_DATA=1). Every wait is bounded in time. With
 * CRASH_LOG_FILE set, every child's whole stdout and stderr are appended to that file (failure
 * messages carry only the current child's tails).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach } from 'vitest';
import { type ApiOptions, type ApiResponse, callApi, type Json } from '../integration/helpers/api';
import { pollUntil } from '../integration/helpers/wait';

export const SECRET_KEY = 'sk_crash_tier_secret_key_0123456789abcdef';
export const PUBLIC_KEY = 'pk_crash_tier_public_key_0123456789abcdef';

const ENTRY = resolve(import.meta.dirname, 'runtime-entry.ts');
const ROOT = resolve(import.meta.dirname, '../..');
const READY_TIMEOUT_MS = 30_000;
const EXIT_TIMEOUT_MS = 10_000;
/** Every request is bounded in time unless a test says otherwise (`timeoutMs`). */
const REQUEST_TIMEOUT_MS = 30_000;

export interface StartOptions {
  /** Provider latency per mail (see runtime-entry.ts). */
  readonly mailDelayMs?: number;
  /** Extra environment for the child. */
  readonly env?: Readonly<Record<string, string>>;
}

export interface CrashRuntime {
  /** http://127.0.0.1:<port> */
  readonly url: string;
  readonly pid: number;
  readonly projectId: string;
  readonly secretKey: string;
  readonly publicKey: string;
  /** One request to this runtime (127.0.0.1 only). */
  api(method: string, path: string, options?: ApiOptions): Promise<ApiResponse>;
  /** SIGKILL; resolves once the process has exited. */
  kill(): Promise<void>;
  readonly exited: boolean;
  /** The child's stdout and stderr so far (tails), for failure messages. */
  output(): string;
}

export interface CrashHarness {
  /** A fresh, empty data folder (removed after the file). */
  dataDir(): string;
  /** Starts the runtime on `dataDir` and waits until it answers. */
  start(dataDir: string, options?: StartOptions): Promise<CrashRuntime>;
}

export function useCrashHarness(): CrashHarness {
  const children = new Set<Child>();
  const dirs: string[] = [];

  const killAll = async () => {
    const all = [...children];
    children.clear();
    await Promise.all(all.map((c) => c.kill()));
  };
  afterEach(killAll);
  afterAll(async () => {
    await killAll();
    // CRASH_KEEP_DATA=1 keeps the folders to look into after a failure.
    if (process.env.CRASH_KEEP_DATA === '1') console.log(`crash data folders kept: ${dirs.join(' ')}`);
    else for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  return {
    dataDir: () => {
      const dir = mkdtempSync(join(tmpdir(), 'sesame-crash-tier-'));
      dirs.push(dir);
      return dir;
    },
    start: async (dataDir, options = {}) => {
      const child = new Child(dataDir, options);
      children.add(child);
      try {
        return await child.ready;
      } catch (error) {
        await child.kill();
        children.delete(child);
        throw error;
      }
    },
  };
}

class Child {
  readonly process: ChildProcess;
  readonly ready: Promise<CrashRuntime>;
  private readonly exit: Promise<void>;
  private out = '';
  private err = '';

  constructor(dataDir: string, options: StartOptions) {
    this.process = spawn(process.execPath, ['--import', 'tsx', ENTRY], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        TMPDIR: process.env.TMPDIR ?? tmpdir(),
        CRASH_DATA_DIR: dataDir,
        SESAME_SECRET_KEY: SECRET_KEY,
        SESAME_PUBLIC_KEY: PUBLIC_KEY,
        RATE_LIMIT_PER_MINUTE: '1000000',
        CRASH_MAIL_DELAY_MS: String(options.mailDelayMs ?? 0),
        // The crash tier runs with every queue message delivered twice, as SQS may deliver it.
        SESAME_REDELIVER_EACH_MESSAGE: process.env.SESAME_REDELIVER_EACH_MESSAGE ?? '1',
        ...options.env,
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.exit = new Promise((resolveExit) => {
      if (this.exited) resolveExit();
      else this.process.once('exit', () => resolveExit());
    });
    const log = process.env.CRASH_LOG_FILE;
    this.process.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      this.err = tail(this.err + chunk);
      if (log) appendFileSync(log, chunk);
    });
    this.ready = new Promise<CrashRuntime>((resolveReady, reject) => {
      let line = '';
      let settled = false;
      const fail = (why: string) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        reject(new Error(`${why}\n${this.output()}`));
      };
      const timer = setTimeout(
        () => fail(`runtime not ready within ${READY_TIMEOUT_MS} ms`),
        READY_TIMEOUT_MS,
      );
      this.process.once('error', (error) => fail(`spawn failed: ${error.message}`));
      this.process.once('exit', (code, signal) => fail(`runtime exited before ready (${code ?? signal})`));
      this.process.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
        this.out = tail(this.out + chunk);
        if (log) appendFileSync(log, chunk);
        if (settled) return;
        line += chunk;
        const nl = line.indexOf('\n');
        if (nl < 0) return;
        let info: { url: string; projectId: string; secretKey: string; publicKey: string; pid: number };
        try {
          info = JSON.parse(line.slice(0, nl));
        } catch {
          fail(`unexpected first line from the runtime: ${line.slice(0, nl)}`);
          return;
        }
        if (!/^http:\/\/127\.0\.0\.1:\d+$/.test(info.url)) {
          fail(`the runtime listens on ${info.url}, not on 127.0.0.1`);
          return;
        }
        settled = true;
        clearTimeout(timer);
        resolveReady(this.handle(info));
      });
    });
  }

  get exited(): boolean {
    return this.process.exitCode !== null || this.process.signalCode !== null;
  }

  output(): string {
    return `--- runtime stdout (tail)\n${this.out}\n--- runtime stderr (tail)\n${this.err}`;
  }

  async kill(): Promise<void> {
    if (!this.exited) this.process.kill('SIGKILL');
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`pid ${this.process.pid} still running ${EXIT_TIMEOUT_MS} ms after SIGKILL`)),
        EXIT_TIMEOUT_MS,
      );
    });
    try {
      await Promise.race([this.exit, timeout]);
    } finally {
      clearTimeout(timer);
    }
    this.process.stdin?.destroy();
  }

  private handle(info: {
    url: string;
    projectId: string;
    secretKey: string;
    publicKey: string;
    pid: number;
  }): CrashRuntime {
    const self = this;
    return {
      url: info.url,
      pid: this.process.pid!,
      projectId: info.projectId,
      secretKey: info.secretKey,
      publicKey: info.publicKey,
      api: (method, path, options = {}) =>
        callApi(info, method, path, { ...options, timeoutMs: options.timeoutMs ?? REQUEST_TIMEOUT_MS }),
      kill: () => this.kill(),
      get exited() {
        return self.exited;
      },
      output: () => this.output(),
    };
  }
}

const tail = (text: string) => (text.length > 20_000 ? text.slice(-20_000) : text);

/** GET /_local/queues: jobs-queue stats and every dead letter. */
export async function queueState(rt: CrashRuntime): Promise<{ jobs: Json; deadLetters: Json[] }> {
  const res = await rt.api('GET', '/_local/queues');
  if (res.status !== 200) throw new Error(`GET /_local/queues answered ${res.status}: ${res.text}`);
  return { jobs: res.body.queues.jobs, deadLetters: res.body.deadLetters };
}

/** Waits until the jobs queue has nothing pending, delayed or in flight. */
export async function jobsQueueIdle(rt: CrashRuntime, timeoutMs = 60_000): Promise<Json> {
  let last: Json;
  return pollUntil(
    'the jobs queue to be idle',
    async () => {
      last = (await queueState(rt)).jobs;
      return last.pending + last.delayed + last.inFlight === 0 ? last : undefined;
    },
    { timeoutMs, last: () => last },
  );
}
