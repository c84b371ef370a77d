/**
 * The definition use cases' read-modify-write over a small in-memory table: a change that loses a
 * race is applied again to what won, a workflow that keeps changing gives up with 409, the item
 * stays under its size bound, and every write refreshes the workflow's interest.
 */
import { describe, expect, it } from 'vitest';
import { AppError } from '../../../shared/errors';
import type { Deps } from '../../../shared/ports';
import { type Item, type Key, type StoreRequests, storeOver, type Write } from '../../../shared/store/store';
import { keys } from '../../../shared/table';
import { readInterest } from '../../../shared/workflows/interest';
import {
  addStep,
  createWorkflow,
  deleteWorkflow,
  listWorkflows,
  MAX_WORKFLOW_BYTES,
  patchWorkflow,
} from '../../../shared/workflows/service';

const conditionFailed = () =>
  Object.assign(new Error('The conditional request failed'), { name: 'ConditionalCheckFailedException' });

/**
 * Just enough of a table for these use cases: puts and deletes with the two conditions they use,
 * the interest's SET/REMOVE of one map entry, gets and prefix queries. `beforeWrite` runs before
 * each put of a workflow item (a concurrent writer's chance).
 */
function memoryDeps(beforeWrite?: (items: Map<string, Item>, write: Write) => void) {
  const items = new Map<string, Item>();
  const id = (k: Key) => `${k.pk}|${k.sk}`;
  const holds = (
    condition: string | undefined,
    current: Item | undefined,
    values: Record<string, unknown> = {},
  ) => {
    if (!condition) return true;
    if (condition === 'attribute_not_exists(pk)') return current === undefined;
    if (condition === 'attribute_exists(pk) AND version = :v')
      return current !== undefined && current.version === values[':v'];
    throw new Error(`Unexpected condition ${condition}`);
  };
  const requests: StoreRequests = {
    get: async (key) => structuredClone(items.get(id(key))),
    batchGet: async (ks) => ks.map((k) => items.get(id(k))).filter((i): i is Item => i !== undefined),
    write: async (write) => {
      if ('put' in write) {
        beforeWrite?.(items, write);
        const key = id(write.put as unknown as Key);
        if (!holds(write.if, items.get(key), write.values)) throw conditionFailed();
        items.set(key, structuredClone(write.put));
        return undefined;
      }
      if ('delete' in write) {
        const key = id(write.delete);
        if (!holds(write.if, items.get(key), write.values)) throw conditionFailed();
        items.delete(key);
        return undefined;
      }
      // The interest item: `SET #by = if_not_exists(#by, :empty)`, `SET #by.#wf = :interest`, `REMOVE #by.#wf`.
      const key = id(write.update);
      const item = items.get(key) ?? { ...write.update };
      const by = (item.byWorkflow ?? {}) as Record<string, unknown>;
      const wf = write.names?.['#wf'];
      if (write.expression.startsWith('REMOVE') && wf) delete by[wf];
      else if (wf) by[wf] = write.values?.[':interest'];
      items.set(key, { ...item, byWorkflow: by });
      return undefined;
    },
    batchDelete: async () => {},
    query: async () => ({ items: [], cursor: '' }),
    queryAll: (query) =>
      (async function* () {
        const prefix = query.sort && 'beginsWith' in query.sort ? query.sort.beginsWith : '';
        for (const item of [...items.values()])
          if (item.pk === query.partition && String(item.sk).startsWith(prefix)) yield structuredClone(item);
      })(),
    count: async () => 0,
  };
  let n = 0;
  const deps = {
    store: storeOver(requests),
    clock: { now: () => new Date(Date.UTC(2026, 0, 1, 0, 0, n++)) },
    ids: { uuid: () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}` },
    // A delete queues the purge of the workflow's executions (shared/workflows/purge.ts).
    queue: { send: async () => {} },
  } as unknown as Deps;
  return { deps, items };
}

const PROJECT = 'p1';
const DELAY = { type: 'DELAY' as const, name: null, config: { amount: 1, unit: 'days' as const } };

describe('workflow changes', () => {
  it('apply again to the newer workflow when another request wrote first', async () => {
    let raced = false;
    const { deps } = memoryDeps((items, write) => {
      const put = (write as { put: Item }).put;
      if (raced || put.entity !== 'workflow' || put.version === 1) return;
      raced = true;
      // Another request renames the workflow between this request's read and its write.
      const key = `${put.pk}|${put.sk}`;
      const stored = items.get(key)!;
      items.set(key, { ...stored, name: 'Renamed meanwhile', version: (stored.version as number) + 1 });
    });
    const w = await createWorkflow(deps, PROJECT, { name: 'Flow', description: null, eventName: 'signup' });
    const step = await addStep(deps, PROJECT, w.id, DELAY);
    const got = await listWorkflows(deps, PROJECT, { page: 1, pageSize: 20, sort: 'createdAt', dir: 'desc' });
    expect(raced).toBe(true);
    expect(got.data).toEqual([
      expect.objectContaining({ id: w.id, name: 'Renamed meanwhile', stepCount: 1, entryStepId: step.id }),
    ]);
  });

  it('give up with 409 WORKFLOW_BUSY when the workflow keeps changing', async () => {
    const { deps } = memoryDeps((items, write) => {
      const put = (write as { put: Item }).put;
      if (put.entity !== 'workflow' || put.version === 1) return;
      const key = `${put.pk}|${put.sk}`;
      const stored = items.get(key)!;
      items.set(key, { ...stored, version: (stored.version as number) + 1 });
    });
    const w = await createWorkflow(deps, PROJECT, { name: 'Flow', description: null, eventName: null });
    const error = await patchWorkflow(deps, PROJECT, w.id, { name: 'Mine' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).statusCode).toBe(409);
    expect((error as AppError).code).toBe('WORKFLOW_BUSY');
  });

  it('keep the definition item under its size bound', async () => {
    const { deps, items } = memoryDeps();
    const w = await createWorkflow(deps, PROJECT, { name: 'Big', description: null, eventName: null });
    const body = 'x'.repeat(60 * 1024);
    const hook = {
      type: 'WEBHOOK' as const,
      name: null,
      config: { url: 'https://x.example', method: 'POST' as const, headers: {}, body },
    };
    let added = 0;
    let error: unknown;
    while (!error) {
      try {
        await addStep(deps, PROJECT, w.id, hook);
        added++;
      } catch (e) {
        error = e;
      }
    }
    expect(added).toBe(Math.floor(MAX_WORKFLOW_BYTES / (60 * 1024)));
    expect((error as AppError).statusCode).toBe(422);
    expect((error as AppError).extra.errors?.[0]?.code).toBe('too_big');
    const stored = items.get(`${keys.workflow(PROJECT, w.id).pk}|${keys.workflow(PROJECT, w.id).sk}`)!;
    expect((stored.steps as unknown[]).length).toBe(added);
  });

  it('refresh what the workflow listens for after every write, and forget it on delete', async () => {
    const { deps } = memoryDeps();
    const w = await createWorkflow(deps, PROJECT, { name: 'Flow', description: null, eventName: 'signup' });
    expect((await readInterest(deps, PROJECT)).get(w.id)).toEqual({ trigger: null, waits: [] });
    await addStep(deps, PROJECT, w.id, {
      type: 'WAIT_FOR_EVENT',
      name: null,
      config: { eventName: 'purchase' },
    });
    expect((await readInterest(deps, PROJECT)).get(w.id)).toEqual({ trigger: null, waits: ['purchase'] });
    await patchWorkflow(deps, PROJECT, w.id, { enabled: true });
    expect((await readInterest(deps, PROJECT)).get(w.id)).toEqual({ trigger: 'signup', waits: ['purchase'] });
    await deleteWorkflow(deps, PROJECT, w.id);
    expect((await readInterest(deps, PROJECT)).has(w.id)).toBe(false);
  });
});
