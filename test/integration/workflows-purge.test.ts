/**
 * The purge of a deleted workflow's executions (shared/workflows/purge.ts) against the local
 * runtime: after `DELETE /workflows/{id}` and the queue's work, the workflow's execution
 * partition is empty and the contacts' entries into it are gone, while another workflow's stay;
 * the purge message delivered again changes nothing; a purge whose workflow still exists (its
 * delete died after queueing it, or lost to a change) deletes nothing; and a partition larger
 * than a page is purged one message a page, finishing after a crash halfway through a page.
 * What is left is read straight from the store, since the API no longer shows any of it.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { enqueue } from '../../shared/jobs/registry';
import type { Deps, QueueMessage } from '../../shared/ports';
import type { Item } from '../../shared/store/store';
import { keys } from '../../shared/table';
import {
  claimEntry,
  countMove,
  type ExecutionRecord,
  putNewExecution,
} from '../../shared/workflows/executions-repository';
import { purgeJobMessage } from '../../shared/workflows/messages';
import { PURGE_PAGE, runPurgeMessage } from '../../shared/workflows/purge';
import { createContact, uniqueEmail } from './helpers/contacts';
import { StoreFaults } from './helpers/faults';
import { useLocalRuntime } from './helpers/local';
import { executionIn, linearWorkflow } from './helpers/workflows';

const rt = useLocalRuntime();
const EXIT_ONLY = [{ type: 'EXIT', config: {} }];

/** Every item of the workflow's execution partition: its executions and their counts. */
async function executionPartition(workflowId: string): Promise<Item[]> {
  const items: Item[] = [];
  const partition = keys.executionCounts(rt.projectId, workflowId).pk;
  for await (const item of rt.deps.store.queryAll({ partition, consistent: true })) items.push(item);
  return items;
}

const entryOf = (contactId: string, workflowId: string) =>
  rt.deps.store.get(keys.workflowEntry(rt.projectId, contactId, workflowId), { consistent: true });

/** A manual start of the workflow for the contact, run to its EXIT. */
async function runToExit(workflowId: string, contactId: string): Promise<void> {
  const res = await rt.api('POST', `/workflows/${workflowId}/executions`, { body: { contactId } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  await executionIn(rt, workflowId, res.body.id, 'EXITED');
}

async function storedVersion(workflowId: string): Promise<number> {
  const item = await rt.deps.store.get(keys.workflow(rt.projectId, workflowId), { consistent: true });
  return Number(item?.version);
}

describe('deleting a workflow', () => {
  it('purges its executions, their counts and the contacts’ entries; a second delivery is harmless', async () => {
    const { id: wf } = await linearWorkflow(rt, { triggerType: 'MANUAL', allowReentry: true }, EXIT_ONLY);
    const { id: other } = await linearWorkflow(rt, { triggerType: 'MANUAL' }, EXIT_ONLY);
    const contacts = [
      await createContact(rt, uniqueEmail('purge-a')),
      await createContact(rt, uniqueEmail('purge-b')),
      await createContact(rt, uniqueEmail('purge-c')),
    ];
    // The first contact enters twice: two executions share its one entry.
    for (const c of [...contacts, contacts[0]!]) await runToExit(wf, c);
    await runToExit(other, contacts[0]!);
    await rt.drain();
    expect(await executionPartition(wf)).toHaveLength(4 + 1);
    for (const c of contacts) expect(await entryOf(c, wf)).toBeDefined();
    const version = await storedVersion(wf);

    const res = await rt.api('DELETE', `/workflows/${wf}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    await rt.drain();

    expect(await executionPartition(wf)).toEqual([]);
    for (const c of contacts) expect(await entryOf(c, wf)).toBeUndefined();
    // Only the deleted workflow's items: the other workflow's, and the contacts, stay.
    expect(await executionPartition(other)).toHaveLength(1 + 1);
    expect(await entryOf(contacts[0]!, other)).toBeDefined();
    for (const c of contacts) expect((await rt.api('GET', `/contacts/${c}`)).status).toBe(200);

    // The same message again (SQS delivers at least once): nothing to delete, nothing fails.
    await enqueue(rt.deps, purgeJobMessage, { projectId: rt.projectId, workflowId: wf, version });
    await rt.drain();
    expect(await executionPartition(wf)).toEqual([]);
    expect(await executionPartition(other)).toHaveLength(1 + 1);
    expect(rt.queue.deadLetters()).toEqual([]);
  });

  it('deletes nothing while the workflow still exists (a delete that died or lost to a change)', async () => {
    const { id: wf } = await linearWorkflow(rt, { triggerType: 'MANUAL' }, EXIT_ONLY);
    const contactId = await createContact(rt, uniqueEmail('purge-kept'));
    await runToExit(wf, contactId);
    await rt.drain();
    const version = await storedVersion(wf);

    // At the version the delete read: looked at again a few times, then given up.
    await enqueue(rt.deps, purgeJobMessage, { projectId: rt.projectId, workflowId: wf, version });
    // At a version never deleted: given up at once.
    await enqueue(rt.deps, purgeJobMessage, {
      projectId: rt.projectId,
      workflowId: wf,
      version: version - 1,
    });
    await rt.drain();

    expect(await executionPartition(wf)).toHaveLength(1 + 1);
    expect(await entryOf(contactId, wf)).toBeDefined();
    expect((await rt.api('GET', `/workflows/${wf}/executions`)).body.total).toBe(1);
    expect(rt.queue.deadLetters()).toEqual([]);
  });
});

describe('the purge of a partition larger than a page', () => {
  const CONTACTS = 50;
  const PER_CONTACT = 5;
  const TOTAL = CONTACTS * PER_CONTACT;

  /**
   * A deleted workflow's leftovers written straight to the store: `TOTAL` ended executions,
   * `PER_CONTACT` for each contact (sharing its entry), and one still waiting for an event.
   */
  async function seed(workflowId: string): Promise<string[]> {
    const now = new Date();
    const contactIds = Array.from({ length: CONTACTS }, () => randomUUID());
    const writeOne = async (contactId: string, i: number) => {
      const record: ExecutionRecord = {
        id: randomUUID(),
        projectId: rt.projectId,
        workflowId,
        contactId,
        status: 'EXITED',
        currentStepId: null,
        context: {},
        history: [],
        startedAt: now.toISOString(),
        completedAt: now.toISOString(),
        error: null,
        seq: 2,
        trigger: null,
        wait: null,
        lease: null,
        updatedAt: now.toISOString(),
        counted: 'EXITED',
        indexed: null,
      };
      const waiting = contactId === contactIds[0] && i === 0;
      const wait = { kind: 'event' as const, until: null, eventName: 'paid', schedule: null };
      await putNewExecution(rt.deps, waiting ? { ...record, status: 'WAITING', wait } : record);
      // The wait item an earlier version wrote for a WAITING execution (a wait writes none now):
      // the purge deletes it with the execution.
      if (waiting)
        await rt.deps.store.write({
          put: {
            ...keys.workflowWait(rt.projectId, contactId, 'paid', record.id),
            workflowId,
            executionId: record.id,
            seq: 2,
            stepId: randomUUID(),
          },
        });
      await claimEntry(rt.deps, rt.projectId, contactId, workflowId, record.id, true, now);
      await countMove(rt.deps, rt.projectId, workflowId, undefined, 'EXITED');
    };
    // The contacts side by side, each one's executions one after another.
    await Promise.all(
      contactIds.map(async (contactId) => {
        for (let i = 0; i < PER_CONTACT; i++) await writeOne(contactId, i);
      }),
    );
    return contactIds;
  }

  async function leftInContacts(workflowId: string, contactIds: readonly string[]) {
    let entries = 0;
    let waits = 0;
    for (const c of contactIds) {
      if (await entryOf(c, workflowId)) entries++;
      for await (const item of rt.deps.store.queryAll({
        partition: keys.contactPartition(rt.projectId, c),
        sort: { beginsWith: 'WFWAIT#' },
        consistent: true,
      }))
        if (item.workflowId === workflowId) waits++;
    }
    return { entries, waits };
  }

  it('deletes a page a message, queueing the next, and finishes after a crash halfway', async () => {
    // No definition: the workflow is already deleted.
    const wf = randomUUID();
    const contactIds = await seed(wf);
    expect(await executionPartition(wf)).toHaveLength(TOTAL + 1);
    expect(await leftInContacts(wf, contactIds)).toEqual({ entries: CONTACTS, waits: 1 });

    const sent: QueueMessage[] = [];
    const faults = new StoreFaults('simulated worker crash');
    const deps: Deps = {
      ...faults.inject(rt.deps),
      queue: { send: async (_queue, message) => void sent.push(message) },
    };
    const message = { type: 'workflows.purge' as const, projectId: rt.projectId, workflowId: wf, version: 3 };

    // A worker that dies between the contacts' items and the executions: these are all still
    // there, and lead the next delivery to what is left.
    faults.failAt((call) => call.op === 'batchDelete', 2);
    await expect(runPurgeMessage(deps, { ...message, rechecks: 0 })).rejects.toThrow(
      'simulated worker crash',
    );
    expect(await executionPartition(wf)).toHaveLength(TOTAL + 1);
    expect((await leftInContacts(wf, contactIds)).entries).toBeLessThan(CONTACTS);
    expect(sent).toEqual([]);

    // Its redelivery deletes one page, and hands the rest to a new message.
    await runPurgeMessage(deps, { ...message, rechecks: 0 });
    const rest = await executionPartition(wf);
    expect(rest).toHaveLength(TOTAL - PURGE_PAGE + 1);
    expect(rest.some((item) => item.sk === '#COUNTS')).toBe(true);
    expect(sent).toEqual([{ ...message, rechecks: 0 }]);

    // The rest, a message a page, through the queue, with that message delivered twice.
    await rt.queue.send('jobs', sent[0]!);
    await rt.queue.send('jobs', sent[0]!);
    await rt.drain();
    expect(await executionPartition(wf)).toEqual([]);
    expect(await leftInContacts(wf, contactIds)).toEqual({ entries: 0, waits: 0 });
    expect(rt.queue.deadLetters()).toEqual([]);
  });
});
