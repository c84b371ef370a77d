import { expect } from 'vitest';
import { TALLY_SETTLE_DELAY_S, TALLY_SETTLE_MS, tallyJobMessage } from '../../../shared/events/tally';
import { enqueue } from '../../../shared/jobs/registry';
import { createProject } from '../../../shared/projects/repository';
import type { ApiOptions, Json, LocalTestRuntime } from './local';

/**
 * Lets a project's event counters catch up with its events (shared/events/tally.ts): moves the
 * clock past the tally's delays (which runs the tally its events armed, if it still waits), runs
 * one more tally for the project (the armed one may have run already, before its events settled:
 * tests shrink queue delays but not the clock), and waits for the queue. With `secondPass`, then
 * moves the clock on past the second pass's settle time and runs the tally again, so the second
 * pass (the contacts' event counts, and any event the first pass missed) has met them too.
 */
export async function settleEventCounts(
  rt: LocalTestRuntime,
  projectId = rt.projectId,
  options: { secondPass?: boolean } = {},
): Promise<void> {
  await rt.runtime.clock.advance(TALLY_SETTLE_DELAY_S);
  await enqueue(rt.deps, tallyJobMessage, { projectId });
  await rt.drain();
  if (!options.secondPass) return;
  await rt.runtime.clock.advance(TALLY_SETTLE_MS / 1000 + 1);
  await enqueue(rt.deps, tallyJobMessage, { projectId });
  await rt.drain();
}

/**
 * A fresh project, so counts and lists start empty: `api` with its secret key, `track` through
 * `/events/track`, and `names` as `name:count` from `/events/names`.
 */
export async function freshEventsProject(rt: LocalTestRuntime, name: string) {
  const p = await createProject(rt.deps, { name });
  const api = (method: string, path: string, options: ApiOptions = {}) =>
    rt.api(method, path, { key: p.secretKey, ...options });
  const track = async (email: string, event: string, data?: unknown) => {
    const res = await api('POST', '/events/track', { body: { email, event, ...(data ? { data } : {}) } });
    expect(res.status).toBe(200);
    return res.body.data as { contact: string; event: string; timestamp: string };
  };
  const names = async () =>
    ((await api('GET', '/events/names')).body.names as Json[]).map((n) => `${n.name}:${n.count}`);
  return { ...p, id: p.project.id, api, track, names };
}
