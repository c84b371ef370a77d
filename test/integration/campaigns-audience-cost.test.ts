/**
 * What an audience count costs (docs/campaigns.md, "The audience before sending"): the requests
 * that start and read a count read the same few items whatever the audience's size, and the job
 * reads about one unit per contact of the audience (its page of keys, the contacts, their
 * suppression entries), with a write per chunk of 100 (measured: 0.91 read units per contact,
 * 2 write units a chunk; the requests 2 read units and 1 write unit to start, 2.5 to read). Counted with the benchmarks' meter
 * (bench/capacity.ts), never timed.
 */
import { describe, expect, it } from 'vitest';
import { campaignBody, campaignProject, createCampaign, seedProjectContacts } from './helpers/campaigns';
import { useLocalRuntime } from './helpers/local';
import { useReadMeter } from './helpers/read-units';

const rt = useLocalRuntime();
const units = useReadMeter(rt);

async function measure(size: number) {
  const p = await campaignProject(rt, `cost${size}`);
  await seedProjectContacts(
    rt,
    p.projectId,
    Array.from({ length: size }, (_, i) => ({
      email: `r${i}@cost${size}.audience.test`,
      subscribed: i % 4 !== 0,
    })),
  );
  const campaign = await createCampaign(p, campaignBody(p.from));
  await rt.drain();
  const { meter } = units;
  meter.reset();
  const started = await p.api('POST', `/campaigns/${campaign.id}/audience`);
  expect(started.status, started.text).toBe(202);
  const post = meter.reset();
  await rt.drain({ timeoutMs: 60_000 });
  const job = meter.reset();
  const got = await p.api('GET', `/campaigns/${campaign.id}/audience`);
  expect(got.body).toMatchObject({ status: 'completed', count: size - size / 4, matched: size });
  const get = meter.reset();
  return { post, job, get };
}

describe('an audience count', () => {
  it('reads a flat few units on its requests and about one unit per audience contact in its job', async () => {
    const small = await measure(100);
    const large = await measure(400);
    expect(large.post).toEqual(small.post);
    expect(large.get).toEqual(small.get);
    for (const [size, m] of [
      [100, small],
      [400, large],
    ] as const) {
      expect(m.job.read / size, `read units per contact at ${size}`).toBeLessThan(1);
      // Its start (1 unit), then one update a chunk of 100 (2 units with the sample).
      expect(m.job.write, `write units at ${size}`).toBeLessThanOrEqual(1 + 2 * (size / 100));
    }
  });
});
