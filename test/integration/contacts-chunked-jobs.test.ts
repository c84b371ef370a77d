/**
 * The contacts domain's background jobs are bounded: stripping a deleted field and purging a
 * deleted contact go through a page of items per chunk, and hand the rest to a continuation
 * message. Through HTTP against the local runtime, with small chunks and no time budget (one
 * chunk a message), a large case completes across several messages, also when the worker dies
 * in the middle and the queue redelivers its message.
 */
import type { SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { jobs, normalizers } from '../../functions/queues/jobs';
import { contactJobs } from '../../shared/contacts/jobs';
import { PURGE_CONTACT_JOB, STRIP_FIELD_JOB } from '../../shared/contacts/messages';
import { jobsWorker } from '../../shared/jobs/registry';
import type { Deps } from '../../shared/ports';
import { keys } from '../../shared/table';
import { settleEventCounts } from './helpers/events';
import { type StoreCall, StoreFaults } from './helpers/faults';
import { type Json, useLocalRuntime } from './helpers/local';

const CHUNK = 10;
const faults = new StoreFaults('simulated worker crash');
/** The type of every record the jobs worker was handed. */
const received: string[] = [];

const rt = useLocalRuntime({
  handlers: {
    queues: {
      jobs: (deps: Deps) => {
        const small = contactJobs({
          purge: { chunkSize: CHUNK, budgetMs: 0 },
          strip: { chunkSize: CHUNK, budgetMs: 0 },
        });
        const defs = [...jobs.filter((j) => !small.some((s) => s.type === j.type)), ...small];
        const worker = jobsWorker(faults.inject(deps), defs, normalizers);
        return (event: SQSEvent) => {
          for (const r of event.Records) received.push((JSON.parse(r.body) as { type: string }).type);
          return worker(event);
        };
      },
    },
  },
});

const count = (type: string) => received.filter((t) => t === type).length;

async function allContacts(domain: string): Promise<Json[]> {
  const out: Json[] = [];
  let cursor: string | undefined;
  do {
    const page = await rt.api('GET', '/contacts', { query: { search: `@${domain}`, limit: 100, cursor } });
    expect(page.status).toBe(200);
    out.push(...page.body.data);
    cursor = page.body.hasMore ? page.body.cursor : undefined;
  } while (cursor);
  return out;
}

describe('field.strip in bounded messages', () => {
  const fieldOf = (domain: string) => domain.split('.')[0]!;
  /** `n` contacts at `domain`; all but every seventh have the field named after the domain. */
  async function seed(domain: string, n: number) {
    for (let i = 0; i < n; i++) {
      const data = i % 7 === 0 ? { keep: i } : { keep: i, [fieldOf(domain)]: { score: i, tier: 'gold' } };
      const res = await rt.api('POST', '/contacts', { body: { email: `c${i}@${domain}`, data } });
      expect(res.status).toBe(201);
    }
  }

  async function expectStripped(domain: string, n: number) {
    const contacts = await allContacts(domain);
    expect(contacts).toHaveLength(n);
    for (const c of contacts) expect(c.data).toEqual({ keep: Number(c.email.slice(1).split('@')[0]) });
  }

  it('strips the field from every contact of a large project, a page a message', async () => {
    // Each test strips its own field from all of the one project's contacts.
    const domain = 'strip.test';
    await seed(domain, 35);
    const before = count(STRIP_FIELD_JOB);
    const project: number = (await rt.api('GET', '/contacts', { query: { limit: 1 } })).body.total;
    const res = await rt.api('DELETE', `/contacts/fields/data.${fieldOf(domain)}`);
    expect(res.status).toBe(200);
    await rt.drain({ timeoutMs: 30_000 });
    await expectStripped(domain, 35);
    expect(count(STRIP_FIELD_JOB) - before).toBe(Math.ceil(project / CHUNK));
    expect(rt.queue.deadLetters()).toEqual([]);
  });

  it('finishes after a worker that died mid-way, from the message it redelivers', async () => {
    const domain = 'strip-crash.test';
    await seed(domain, 25);
    const before = count(STRIP_FIELD_JOB);
    // The 12th contact write of the job fails, as a worker that stops there would.
    faults.failAt((call: StoreCall) => call.op === 'put' && call.key?.sk === '#CONTACT', 12);
    const res = await rt.api('DELETE', `/contacts/fields/data.${fieldOf(domain)}`);
    expect(res.status).toBe(200);
    await rt.drain({ timeoutMs: 30_000 });
    expect(faults.fired).toBe(true);
    faults.clear();
    await expectStripped(domain, 25);
    expect(count(STRIP_FIELD_JOB) - before).toBeGreaterThan(2);
    expect(rt.queue.deadLetters()).toEqual([]);
  });
});

describe('contact.purge in bounded messages', () => {
  const EVENTS = 45;

  async function contactWithEvents(email: string) {
    let contactId = '';
    for (let i = 0; i < EVENTS; i++) {
      const res = await rt.api('POST', '/events/track', { body: { email, event: `visit-${email}` } });
      expect(res.status).toBe(200);
      contactId = res.body.data.contact;
    }
    return contactId;
  }

  async function expectPurged(email: string, contactId: string) {
    const partition = rt.deps.store.queryAll({
      partition: keys.contactPartition(rt.projectId, contactId),
    });
    const left: unknown[] = [];
    for await (const item of partition) left.push(item);
    expect(left).toEqual([]);
    // The event counters went down with the events, once each.
    const names = (await rt.api('GET', '/events/names')).body.names as Json[];
    expect(names.find((n) => n.name === `visit-${email}`)?.count ?? 0).toBe(0);
    const events = await rt.api('GET', '/events', { query: { name: `visit-${email}` } });
    expect(events.body).toMatchObject({ data: [], total: 0 });
    // The claim went too: the email is free for a new contact.
    expect((await rt.api('POST', '/contacts', { body: { email } })).status).toBe(201);
  }

  it('purges a contact with many events, a page of its items a message', async () => {
    const email = 'many@purge.test';
    const contactId = await contactWithEvents(email);
    // Counted by both passes: the partition holds the contact's event count item too
    // (shared/events/tally.ts).
    await settleEventCounts(rt, rt.projectId, { secondPass: true });
    expect(await rt.deps.store.get(keys.contactEventCount(rt.projectId, contactId))).toMatchObject({
      count: EVENTS,
    });
    const before = count(PURGE_CONTACT_JOB);
    expect((await rt.api('DELETE', `/contacts/${contactId}`)).status).toBe(200);
    await rt.drain({ timeoutMs: 30_000 });
    // A page holds the tombstone and CHUNK - 1 other items (the events and their count); the last
    // one only what is left.
    expect(count(PURGE_CONTACT_JOB) - before).toBe(Math.ceil((EVENTS + 1) / (CHUNK - 1)));
    await expectPurged(email, contactId);
    expect(rt.queue.deadLetters()).toEqual([]);
  });

  it('finishes after a worker that died mid-way, from the message it redelivers', async () => {
    const email = 'crash@purge.test';
    const contactId = await contactWithEvents(email);
    await rt.drain();
    // The third chunk's read fails, as a worker that stops there would.
    faults.failAt((call: StoreCall) => call.op === 'query', 3);
    expect((await rt.api('DELETE', `/contacts/${contactId}`)).status).toBe(200);
    await rt.drain({ timeoutMs: 30_000 });
    expect(faults.fired).toBe(true);
    faults.clear();
    await expectPurged(email, contactId);
    expect(rt.queue.deadLetters()).toEqual([]);
  });
});
