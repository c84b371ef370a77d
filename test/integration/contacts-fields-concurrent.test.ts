/**
 * Field and value counters under concurrency, through HTTP: 50 writers at once, each creating a
 * contact with a field every one shares and one of its own values, then changing it, leave
 * `GET /contacts/fields` coverage and `GET /contacts/fields/{field}/values` (and the counts
 * behind its order) exact as written: no writer gives up and leaves them to a recount.
 */
import { describe, expect, it, vi } from 'vitest';
import { readFieldValueCounts } from '../../shared/contacts/stats';
import { createProject } from '../../shared/projects/repository';
import { type ApiOptions, type Json, useLocalRuntime } from './helpers/local';

const rt = useLocalRuntime();
const WRITERS = 50;

describe('50 concurrent writers', () => {
  it('leave coverage and value counts exact', async () => {
    const p = await createProject(rt.deps, { name: 'fields under concurrency' });
    const api = (method: string, path: string, options: ApiOptions = {}) =>
      rt.api(method, path, { key: p.secretKey, ...options });
    const plan = (i: number) => `p${i % 7}`;
    const warn = vi.spyOn(console, 'warn');
    const created = await Promise.all(
      Array.from({ length: WRITERS }, (_, i) =>
        api('POST', '/contacts', { body: { email: `w${i}@conc.test`, data: { plan: plan(i), seat: i } } }),
      ),
    );
    for (const res of created) expect(res.status, res.text).toBe(201);
    // Then every one changes its plan at once, and half drop the seat.
    const changed = await Promise.all(
      created.map((res, i) =>
        api('PATCH', `/contacts/${res.body.id}`, {
          body: { data: { plan: plan(i + 1), ...(i % 2 === 0 ? { seat: null } : {}) } },
        }),
      ),
    );
    for (const res of changed) expect(res.status, res.text).toBe(200);
    await rt.drain();

    const fields = (await api('GET', '/contacts/fields')).body.fields as Json[];
    const coverage = Object.fromEntries(fields.map((f) => [f.field, f.coverage]));
    // Coverage is the share of the project's contacts that have the field.
    expect(coverage['data.plan']).toBe(1);
    expect(coverage['data.seat']).toBe(0.5);
    expect(coverage.email).toBe(1);
    const values = await api('GET', '/contacts/fields/data.plan/values?limit=100');
    expect(values.status, values.text).toBe(200);
    const expected = new Map<string, number>();
    for (let i = 0; i < WRITERS; i++) expected.set(plan(i + 1), (expected.get(plan(i + 1)) ?? 0) + 1);
    // Most frequent first: p1 has 8 contacts, the six others 7 each.
    expect(values.body.count).toBe(expected.size);
    expect(values.body.values[0]).toBe('p1');
    expect([...values.body.values].sort()).toEqual([...expected.keys()].sort());
    // The counts behind that order, exact.
    const stored = await readFieldValueCounts(rt.deps, p.project.id, 'plan');
    expect(new Map([...stored.counts].map(([k, n]) => [JSON.parse(k), n]))).toEqual(expected);
    const seats = await readFieldValueCounts(rt.deps, p.project.id, 'seat');
    expect(seats.counts.size).toBe(WRITERS / 2);
    expect([...seats.counts.values()].every((n) => n === 1)).toBe(true);
    const listed = await api('GET', '/contacts/fields/data.seat/values?limit=100');
    expect(listed.body.count).toBe(WRITERS / 2);
    // Exact as written: no write gave up and left them to a recount.
    const gaveUp = warn.mock.calls.map((c) => String(c[0])).filter((m) => m.includes('counters not updated'));
    warn.mockRestore();
    expect(gaveUp).toEqual([]);
    expect(rt.queue.deadLetters()).toEqual([]);
  });
});
