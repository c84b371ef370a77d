/**
 * The send rate when SES_MAX_SEND_RATE is not set, through HTTP against the local runtime: a
 * fan-out paces itself to the account's maximum send rate as the mailer reports it (on AWS, SES's
 * GetAccount; here the mail sink, made to report one), and to 14 a second when the mailer has none
 * (the local sink's own answer).
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  campaignBody,
  campaignProject,
  createCampaign,
  maxInAnySecond,
  seedProjectContacts,
} from './helpers/campaigns';
import { useLocalRuntime } from './helpers/local';

const rt = useLocalRuntime();

afterEach(() => {
  // The tests shadow the sink's method with one of their own; this puts the sink's back.
  Reflect.deleteProperty(rt.mailSink, 'maxSendRate');
});

/** Sends one campaign to `count` new contacts and answers when each message reached the sink. */
async function sendTimes(tag: string, count: number): Promise<number[]> {
  const p = await campaignProject(rt, tag);
  await seedProjectContacts(
    rt,
    p.projectId,
    Array.from({ length: count }, (_, i) => ({ email: `${tag}-${i}@quota.test` })),
  );
  const { id } = await createCampaign(p, campaignBody(p.from));
  expect((await p.api('POST', `/campaigns/${id}/send`)).status).toBe(200);
  await rt.drain({ timeoutMs: 20_000 });
  expect((await p.api('GET', `/campaigns/${id}`)).body).toMatchObject({ status: 'SENT', sentCount: count });
  return (await rt.mails()).filter((m) => m.from === p.from).map((m) => Date.parse(m.createdAt));
}

const achieved = (times: readonly number[], rate: number) =>
  times.length / ((Math.max(...times) - Math.min(...times)) / 1000 + 1 / rate);

describe('the send rate without SES_MAX_SEND_RATE', () => {
  it("paces a fan-out to the account's maximum send rate the mailer reports", async () => {
    let asked = 0;
    rt.mailSink.maxSendRate = async () => {
      asked++;
      return 8;
    };
    const times = await sendTimes('quota-8', 24);
    expect(asked).toBeGreaterThan(0);
    expect(maxInAnySecond(times)).toBeLessThanOrEqual(8 + 1);
    expect(achieved(times, 8)).toBeLessThanOrEqual(8 * 1.05);
    expect(achieved(times, 8)).toBeGreaterThan(8 * 0.75);
  });

  it('uses 14 a second when the mailer has no quota to report', async () => {
    expect(await rt.mailSink.maxSendRate()).toBeUndefined();
    const times = await sendTimes('quota-default', 42);
    expect(maxInAnySecond(times)).toBeLessThanOrEqual(14 + 1);
    expect(achieved(times, 14)).toBeLessThanOrEqual(14 * 1.05);
    expect(achieved(times, 14)).toBeGreaterThan(14 * 0.75);
  });
});
