/**
 * What the bench scripts share about the local runtime: labelling the writes of its queue workers
 * (so the capacity meter can tell a call's writes from the jobs it left), and seeding items straight
 * into its table.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSEvent } from 'aws-lambda';
import { type ContactRecord, toItem } from '../shared/contacts/repository';
import type { LocalRuntime } from '../shared/local/runtime';
import { keys } from '../shared/table';

type Worker = (event: SQSEvent) => Promise<unknown>;

/** The runtime's queue workers, which a bench may wrap (the local queue keeps them by queue). */
export function queueWorkers(rt: LocalRuntime): { worker?: Worker }[] {
  return [...(rt.queue as unknown as { queues: Map<string, { worker?: Worker }> }).queues.values()];
}

/** Runs every queue worker of `rt` in a context labelled 'jobs'; read the label with `getStore()`. */
export function labelJobs(rt: LocalRuntime): AsyncLocalStorage<string> {
  const phase = new AsyncLocalStorage<string>();
  for (const q of queueWorkers(rt)) {
    const worker = q.worker;
    if (worker) q.worker = (event) => phase.run('jobs', () => worker(event));
  }
  return phase;
}

/**
 * Puts `items` into the runtime's table with BatchWriteItem, 25 a request and `lanes` requests at
 * once, retrying unprocessed items: seeding as the repositories would write the items, without
 * going through the API.
 */
export async function putItems(
  rt: LocalRuntime,
  items: readonly Record<string, unknown>[],
  lanes = 1,
): Promise<void> {
  const { db, tableName } = rt.dynamo;
  const batches: Record<string, unknown>[][] = [];
  for (let i = 0; i < items.length; i += 25) batches.push(items.slice(i, i + 25));
  const lane = async () => {
    for (let batch = batches.shift(); batch; batch = batches.shift()) {
      let pending = batch.map((Item) => ({ PutRequest: { Item } }));
      while (pending.length > 0) {
        const out = await db.send(new BatchWriteCommand({ RequestItems: { [tableName]: pending } }));
        pending = (out.UnprocessedItems?.[tableName] ?? []) as typeof pending;
      }
    }
  };
  await Promise.all(Array.from({ length: lanes }, lane));
}

/** A subscribed contact's two items (its email claim and the contact), as the repository writes them. */
export function contactItems(
  projectId: string,
  email: string,
  data: ContactRecord['data'],
  at: string,
): { record: ContactRecord; items: Record<string, unknown>[] } {
  const record: ContactRecord = {
    id: randomUUID(),
    email,
    emailLower: email.toLowerCase(),
    subscribed: true,
    snoozedUntil: null,
    data,
    createdAt: at,
    updatedAt: at,
    version: 1,
  };
  return {
    record,
    items: [
      { ...keys.emailClaim(projectId, email), entity: 'emailClaim', contactId: record.id, email },
      toItem(projectId, record),
    ],
  };
}

/**
 * A JSON call to the runtime's API with `secretKey` (or the key given per call), throwing on an
 * error status: how the benches drive the API through HTTP.
 */
export function apiCaller(url: string, secretKey: string) {
  return async (method: string, path: string, json?: unknown, key = secretKey) => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: json === undefined ? undefined : JSON.stringify(json),
    });
    const out = (await res.json()) as Record<string, unknown>;
    if (res.status >= 400) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(out)}`);
    return out;
  };
}
