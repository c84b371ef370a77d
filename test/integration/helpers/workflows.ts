/**
 * Helpers for workflow tests: a workflow built step by step through the API, a local HTTP server
 * receiving WEBHOOK calls, and waiting for an execution to reach a status.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import type { ApiOptions, ApiResponse, Json } from './local';
import { pollUntil } from './wait';

export interface Api {
  api(method: string, path: string, options?: ApiOptions): Promise<ApiResponse>;
}

export interface StepSpec {
  readonly type: string;
  readonly config: Record<string, unknown>;
  readonly name?: string;
}

async function ok(res: ApiResponse, status: number, what: string): Promise<Json> {
  expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBe(status);
  return res.body;
}

export async function createTemplate(
  p: Api,
  from: string,
  extra: Record<string, unknown> = {},
): Promise<string> {
  const res = await p.api('POST', '/templates', {
    body: { name: 'Workflow mail', subject: 'Hi {{ email }}', body: '<p>Hello</p>', from, ...extra },
  });
  return (await ok(res, 201, 'template')).id;
}

export async function createWorkflow(p: Api, body: Record<string, unknown>): Promise<string> {
  return (await ok(await p.api('POST', '/workflows', { body }), 201, 'workflow')).id;
}

export async function addStep(p: Api, workflowId: string, step: StepSpec): Promise<string> {
  const res = await p.api('POST', `/workflows/${workflowId}/steps`, { body: step });
  return (await ok(res, 201, `step ${step.type}`)).id;
}

export async function connect(
  p: Api,
  workflowId: string,
  fromStepId: string,
  toStepId: string,
  branch?: string,
) {
  const res = await p.api('POST', `/workflows/${workflowId}/transitions`, {
    body: { fromStepId, toStepId, ...(branch ? { branch } : {}) },
  });
  return (await ok(res, 201, 'transition')).id as string;
}

export async function patchWorkflow(p: Api, workflowId: string, body: Record<string, unknown>) {
  return ok(await p.api('PATCH', `/workflows/${workflowId}`, { body }), 200, 'patch workflow');
}

/**
 * A workflow of `steps` run one after another (a CONDITION's `yes` or a WAIT_FOR_EVENT's `event`
 * leads on), enabled. Answers its id and its steps' ids in order.
 */
export async function linearWorkflow(
  p: Api,
  spec: { name?: string; eventName?: string; allowReentry?: boolean; triggerType?: string },
  steps: readonly StepSpec[],
): Promise<{ id: string; steps: string[] }> {
  const id = await createWorkflow(p, {
    name: spec.name ?? 'Flow',
    ...(spec.eventName ? { eventName: spec.eventName } : {}),
  });
  const ids: string[] = [];
  for (const step of steps) ids.push(await addStep(p, id, step));
  for (let i = 1; i < ids.length; i++) {
    const from = steps[i - 1]!.type;
    const branch = from === 'CONDITION' ? 'yes' : from === 'WAIT_FOR_EVENT' ? 'event' : undefined;
    await connect(p, id, ids[i - 1]!, ids[i]!, branch);
  }
  await patchWorkflow(p, id, {
    enabled: true,
    ...(spec.allowReentry === undefined ? {} : { allowReentry: spec.allowReentry }),
    ...(spec.triggerType ? { triggerType: spec.triggerType } : {}),
  });
  return { id, steps: ids };
}

export async function executions(p: Api, workflowId: string, query = ''): Promise<Json> {
  return ok(await p.api('GET', `/workflows/${workflowId}/executions${query}`), 200, 'list executions');
}

/** The workflow's executions once `count` of them have `status`. */
export async function executionsWith(p: Api, workflowId: string, status: string, count = 1): Promise<Json[]> {
  let last: Json | undefined;
  return pollUntil(
    `${count} ${status} execution(s) of ${workflowId}`,
    async () => {
      last = await executions(p, workflowId, `?status=${status}&pageSize=100`);
      return last.data.length >= count && last.total >= count ? (last.data as Json[]) : undefined;
    },
    { timeoutMs: 20_000, last: () => last },
  );
}

export async function execution(p: Api, workflowId: string, executionId: string): Promise<Json> {
  return ok(await p.api('GET', `/workflows/${workflowId}/executions/${executionId}`), 200, 'get execution');
}

/** The execution once it has `status`. */
export async function executionIn(p: Api, workflowId: string, executionId: string, status: string) {
  let last: Json | undefined;
  return pollUntil(
    `execution ${executionId} ${status}`,
    async () => {
      last = await execution(p, workflowId, executionId);
      return last.status === status ? last : undefined;
    },
    { timeoutMs: 20_000, last: () => last },
  );
}

/** Whether the execution is in a DELAY: WAITING at the DELAY step, which it has recorded. */
export function inDelay(x: Json): boolean {
  const latest = (x.history as Json[] | undefined)?.at(-1);
  return (
    x.status === 'WAITING' &&
    latest?.type === 'DELAY' &&
    latest.stepId === x.currentStepId &&
    String(latest.result).startsWith('delayed until')
  );
}

/** The execution once it is in a DELAY (`inDelay`). */
export async function executionDelayed(p: Api, workflowId: string, executionId: string) {
  let last: Json | undefined;
  return pollUntil(
    `execution ${executionId} in its delay`,
    async () => {
      last = await execution(p, workflowId, executionId);
      return inDelay(last) ? last : undefined;
    },
    { timeoutMs: 20_000, last: () => last },
  );
}

export interface ReceivedCall {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** An HTTP server on 127.0.0.1 that records calls and answers with `respond` (200 by default). */
export async function webhookReceiver(respond: (call: ReceivedCall, n: number) => number = () => 200) {
  const calls: ReceivedCall[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const call = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
      };
      calls.push(call);
      res.statusCode = respond(call, calls.length);
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export async function advanceClock(p: Api, seconds: number) {
  return ok(await p.api('POST', '/_local/clock', { key: null, body: { advance: seconds } }), 200, 'advance');
}
