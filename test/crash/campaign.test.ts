/**
 * A campaign whose runtime is SIGKILLed in the middle of its fan-out, while provider
 * calls are in flight (each takes 100 ms, half before the mail sink accepts the message and half
 * after), and started again on the same data folder each time, with every queue message delivered
 * twice (the harness's SESAME_REDELIVER_EACH_MESSAGE=1). The send ends SENT; the kills may leave
 * recipients `unknown` (a claim with no outcome), shown in the stats' `unknownCount`. Once the
 * clock has moved past the grace period (`POST /_local/clock`) and the event tally has run:
 * - every recipient mailed exactly once (the mail sink): the claims a kill cut before SES took
 *   the message are sent by the campaign's settle, those SES took are not sent again;
 * - `unknownCount` 0, `sentCount` = `totalRecipients` = the recipients, every delivery counted
 *   once (`deliveredCount`, `deliveryRate` 100), no bounce, nothing dead-lettered.
 */
import { describe, expect, it } from 'vitest';
import type { Json } from '../integration/helpers/api';
import { upload } from '../integration/helpers/imports';
import { pollUntil } from '../integration/helpers/wait';
import { type CrashRuntime, jobsQueueIdle, queueState, useCrashHarness } from './harness';

const crash = useCrashHarness();

const N = 300;
/**
 * Kills at a third and at two thirds of the campaign (CRASH_KILLS changes how many). Each kill
 * costs the messages then in flight one receive, as a crashed Lambda does on SQS, and every
 * message is delivered once more after it completes: with five receives a message, a fan-out
 * message that lives through three kills (its 20 s budget spans them) and its redelivery has no
 * receive left for one more failure, and would be dead-lettered as SQS would dead-letter it.
 * Two kills leave it one.
 */
const KILLS = Number(process.env.CRASH_KILLS ?? 2);
const email = (i: number) => `c${String(i).padStart(3, '0')}@campaign.crash.test`;
const ENV = { SES_MAX_SEND_RATE: '60' };

interface SinkMail {
  id: string;
  to: string[];
  tags: Record<string, string>;
}

async function getJson(rt: CrashRuntime, path: string): Promise<Json> {
  const res = await rt.api('GET', path);
  expect(res.status, `${path}: ${res.text}`).toBe(200);
  return res.body as Json;
}

async function campaignMails(rt: CrashRuntime, campaignId: string): Promise<SinkMail[]> {
  const all = (await getJson(rt, '/_local/emails')) as SinkMail[];
  return all.filter((m) => m.tags.campaignId === campaignId);
}

async function advance(rt: CrashRuntime, seconds: number) {
  const res = await rt.api('POST', '/_local/clock', { body: { advance: seconds } });
  expect(res.status, res.text).toBe(200);
  await jobsQueueIdle(rt, 120_000);
}

describe('campaign fan-out killed mid-send, every message delivered twice', () => {
  it('mails every recipient exactly once and ends with every counter exact', {
    timeout: 300_000,
  }, async () => {
    const dir = crash.dataDir();
    let rt = await crash.start(dir, { mailDelayMs: 100, env: ENV });

    const csv = `email\n${Array.from({ length: N }, (_, i) => email(i)).join('\n')}\n`;
    const up = await upload(rt, csv);
    expect(up.status, up.text).toBe(202);
    let last: Json;
    await pollUntil(
      'the import to finish',
      async () => {
        last = await getJson(rt, `/contacts/import/${up.body.jobId}`);
        return last.status === 'completed' ? last : undefined;
      },
      { intervalMs: 100, timeoutMs: 60_000, last: () => last },
    );

    const created = await rt.api('POST', '/campaigns', {
      body: {
        name: 'Crash',
        subject: 'Hello {{ email }}',
        body: '<p>Hello {{ email }}</p>',
        from: 'news@example.com',
        type: 'MARKETING',
        audienceType: 'ALL',
      },
    });
    expect(created.status, created.text).toBe(201);
    const id: string = created.body.data.id;
    const sent = await rt.api('POST', `/campaigns/${id}/send`, { body: {} });
    expect(sent.status, sent.text).toBe(200);

    // Kill while mails are going out, at each (KILLS + 1)th of the campaign.
    for (let k = 1; k <= KILLS; k++) {
      let seen: SinkMail[] = [];
      let queue: Json;
      const current = rt;
      await pollUntil(
        `${k} of ${KILLS + 1} parts of the campaign in the sink`,
        async () => {
          seen = await campaignMails(current, id);
          if (seen.length >= (k * N) / (KILLS + 1)) return true;
          queue = await queueState(current);
          return undefined;
        },
        { intervalMs: 10, timeoutMs: 60_000, last: () => ({ mails: seen.length, queue }) },
      );
      await current.kill();
      expect(seen.length).toBeLessThan(N);
      rt = await crash.start(dir, { mailDelayMs: 100, env: ENV });
      console.log(`campaign: kill ${k} with ${seen.length} mails seen`);
    }

    let queue: Json;
    await pollUntil(
      'the campaign to be SENT',
      async () => {
        last = await getJson(rt, `/campaigns/${id}`);
        if (last.status === 'SENT') return last;
        queue = await queueState(rt);
        return undefined;
      },
      { intervalMs: 100, timeoutMs: 60_000, last: () => ({ campaign: last, queue }) },
    );
    await jobsQueueIdle(rt, 120_000);
    const before = (await getJson(rt, `/campaigns/${id}/stats`)).data;
    console.log(`campaign: SENT with ${before.sentCount} sent, ${before.unknownCount} unknown`);
    expect(before.sentCount + before.unknownCount).toBe(N);

    // Past the grace period: the settles and SES's deferred Send events; then past the event
    // tally's settle time, with an event that arms a tally (the tally counts events two minutes old).
    await advance(rt, 700);
    await advance(rt, 300);
    const tracked = await rt.api('POST', '/v1/track', {
      key: rt.publicKey,
      body: { email: email(0), event: 'crash.tally' },
    });
    expect(tracked.status, tracked.text).toBe(200);
    await jobsQueueIdle(rt, 120_000);

    const mails = await campaignMails(rt, id);
    const perAddress = new Map<string, number>();
    for (const m of mails) for (const to of m.to) perAddress.set(to, (perAddress.get(to) ?? 0) + 1);
    const all = Array.from({ length: N }, (_, i) => email(i));
    expect(
      all.filter((a) => perAddress.get(a) !== 1),
      'every recipient mailed exactly once',
    ).toEqual([]);
    expect(mails).toHaveLength(N);

    const stats = (await getJson(rt, `/campaigns/${id}/stats`)).data;
    expect(stats).toMatchObject({
      totalRecipients: N,
      sentCount: N,
      unknownCount: 0,
      deliveredCount: N,
      bouncedCount: 0,
      complainedCount: 0,
      deliveryRate: 100,
    });
    expect(await getJson(rt, `/campaigns/${id}`)).toMatchObject({ status: 'SENT', totalRecipients: N });
    expect((await queueState(rt)).deadLetters).toEqual([]);
    console.log(
      `campaign: after the grace period ${stats.sentCount} sent, ${stats.deliveredCount} delivered, ${mails.length} mails`,
    );
  });
});
