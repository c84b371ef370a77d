/**
 * The send rate through HTTP against the local runtime (SES_MAX_SEND_RATE=20): a campaign's
 * messages reach the mail sink no faster than the rate, and two campaigns sent at once share it. The mail sink stamps each message with the runtime's clock when it is handed over, a write
 * or two after its slot, so one message of jitter is allowed in a second; the limiter's own
 * guarantee is exact (test/unit/campaigns/send-rate.test.ts).
 */
import { describe, expect, it } from 'vitest';
import {
  campaignBody,
  campaignProject,
  createCampaign,
  maxInAnySecond,
  seedProjectContacts,
} from './helpers/campaigns';
import { useLocalRuntime } from './helpers/local';

const RATE = 20;
const rt = useLocalRuntime({ env: { SES_MAX_SEND_RATE: String(RATE) } });

describe('SES_MAX_SEND_RATE', () => {
  it('paces two campaigns sent at once to the rate between them', async () => {
    const campaigns: { p: Awaited<ReturnType<typeof campaignProject>>; id: string; from: string }[] = [];
    for (const tag of ['rate-a', 'rate-b']) {
      const p = await campaignProject(rt, tag);
      await seedProjectContacts(
        rt,
        p.projectId,
        Array.from({ length: 30 }, (_, i) => ({ email: `${tag}-${i}@rate.test` })),
      );
      campaigns.push({ p, id: (await createCampaign(p, campaignBody(p.from))).id, from: p.from });
    }
    await Promise.all(campaigns.map(({ p, id }) => p.api('POST', `/campaigns/${id}/send`)));
    await rt.drain({ timeoutMs: 20_000 });
    const senders = new Set(campaigns.map((c) => c.from));
    const times = (await rt.mails()).filter((m) => senders.has(m.from)).map((m) => Date.parse(m.createdAt));
    expect(times).toHaveLength(60);
    const seconds = (Math.max(...times) - Math.min(...times)) / 1000;
    // 60 messages at 20 a second: never faster, whatever the machine's load. (How close to the
    // rate a campaign comes is a machine's speed, not a rule: bench:campaign measures it.)
    expect(maxInAnySecond(times)).toBeLessThanOrEqual(RATE + 1);
    expect(60 / (seconds + 1 / RATE)).toBeLessThanOrEqual(RATE * 1.05);
    for (const { p, id } of campaigns)
      expect((await p.api('GET', `/campaigns/${id}`)).body).toMatchObject({ status: 'SENT', sentCount: 30 });
  });
});
