/**
 * A campaign whose runtime is SIGKILLed in the middle of its fan-out, while provider calls are in
 * flight (each takes 100 ms, half before the mail sink accepts the message and half after), then
 * started again on the same data folder. The queue delivers the fan-out's message again and the
 * send ends SENT with:
 * - nobody mailed twice, whatever batch the kill cut through;
 * - everyone mailed except, at most, the recipients whose provider call the kill cut before the
 *   sink took it (their claim stands, so they are not sent again);
 * - every recipient whose call was cut, before or after the sink took it, counted neither sent
 *   nor failed (`unknown`, for the SES send event to settle), and everyone else counted sent.
 */
import { describe, expect, it } from 'vitest';
import type { Json } from '../integration/helpers/api';
import { upload } from '../integration/helpers/imports';
import { pollUntil } from '../integration/helpers/wait';
import { type CrashRuntime, jobsQueueIdle, queueState, useCrashHarness } from './harness';

const crash = useCrashHarness();

const N = 120;
/** Recipients the fan-out sends at once (its default concurrency): the most a kill can cut. */
const CONCURRENCY = 8;
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

describe('campaign fan-out killed mid-send', () => {
  it('ends SENT after a restart with nobody mailed twice and only the cut calls unaccounted', async () => {
    const dir = crash.dataDir();
    const first = await crash.start(dir, { mailDelayMs: 100, env: ENV });

    const csv = `email\n${Array.from({ length: N }, (_, i) => email(i)).join('\n')}\n`;
    const up = await upload(first, csv);
    expect(up.status, up.text).toBe(202);
    let last: Json;
    await pollUntil(
      'the import to finish',
      async () => {
        last = await getJson(first, `/contacts/import/${up.body.jobId}`);
        return last.status === 'completed' ? last : undefined;
      },
      { intervalMs: 100, timeoutMs: 60_000, last: () => last },
    );

    const created = await first.api('POST', '/campaigns', {
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
    const sent = await first.api('POST', `/campaigns/${id}/send`, { body: {} });
    expect(sent.status, sent.text).toBe(200);

    // Kill while mails are going out: some sent, most not yet.
    let seen: SinkMail[] = [];
    await pollUntil(
      'a quarter of the campaign in the sink',
      async () => {
        seen = await campaignMails(first, id);
        return seen.length >= N / 4 ? true : undefined;
      },
      { intervalMs: 10, timeoutMs: 60_000, last: () => seen.length },
    );
    await first.kill();
    expect(seen.length).toBeLessThan(N);

    const second = await crash.start(dir, { mailDelayMs: 10, env: ENV });
    const afterKill = await campaignMails(second, id);
    console.log(
      `campaign: killed with ${seen.length} mails seen, ${afterKill.length} in the sink after restart`,
    );

    const done = await pollUntil(
      'the campaign to be SENT',
      async () => {
        last = await getJson(second, `/campaigns/${id}`);
        return last.status === 'SENT' ? last : undefined;
      },
      { intervalMs: 100, timeoutMs: 90_000, last: () => last },
    );
    await jobsQueueIdle(second);
    expect((await queueState(second)).deadLetters).toEqual([]);

    const mails = await campaignMails(second, id);
    const perAddress = new Map<string, number>();
    for (const m of mails) for (const to of m.to) perAddress.set(to, (perAddress.get(to) ?? 0) + 1);
    const twice = [...perAddress].filter(([, n]) => n > 1);
    expect(twice, 'nobody is mailed twice').toEqual([]);
    const neverMailed = Array.from({ length: N }, (_, i) => email(i)).filter((a) => !perAddress.has(a));
    expect(neverMailed.length).toBeLessThanOrEqual(CONCURRENCY);
    const unknown = N - done.sentCount;
    expect(done.totalRecipients).toBe(N);
    // The cut calls: those the sink never took, and those it took after the kill's last outcome write.
    expect(unknown).toBeGreaterThanOrEqual(neverMailed.length);
    expect(unknown).toBeLessThanOrEqual(CONCURRENCY);
    console.log(
      `campaign: SENT after restart: ${done.sentCount} counted sent, ${unknown} unknown ` +
        `(${neverMailed.length} never mailed), ${mails.length} mails`,
    );
  });
});
