import { expect } from 'vitest';
import { TALLY_DELAY_S, tallyJobMessage } from '../../../shared/events/tally';
import { enqueue } from '../../../shared/jobs/registry';
import { createProject } from '../../../shared/projects/repository';
import type { ApiOptions, Json, LocalTestRuntime } from './local';

/**
 * Lets a project's event counters catch up with its events (shared/events/tally.ts): moves the
 * clock past the tally's delay (which runs the tally its events armed, if it still waits), runs
 * one more tally for the project (the armed one may have run already, before its events settled:
 * tests shrink queue delays but not the clock), and waits for the queue.
 */
export async function settleEventCounts(rt: LocalTestRuntime, projectId = rt.projectId): Promise<void> {
  await rt.runtime.clock.advance(TALLY_DELAY_S);
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
