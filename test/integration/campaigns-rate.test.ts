/**
 * The send rate through HTTP against the local runtime (SES_MAX_SEND_RATE=20): a campaign's
 * messages reach the mail sink no faster than the rate, and two campaigns sent at once share it. The mail sink stamps each message with the runtime's clock when it is handed over, a write
 * or two after its slot, so one message of jitter is allowed in a second; the limiter's own
 * guarantee is exact (test/unit/campaigns/send-rate.test.ts).
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { campaignBody, campaignProject, createCampaign, seedProjectContacts } from './helpers/campaigns';
import { useLocalRuntime } from './helpers/local';

const RATE = 20;
const rt = useLocalRuntime({ env: { SES_MAX_SEND_RATE: String(RATE) } });

/** The send-rate windows in the table (`SENDRATE#<second>`, shared by every project). */
async function rateWindows(): Promise<{ second: number; used: number }[]> {
  const { db, tableName } = rt.runtime.dynamo;
  const out: { second: number; used: number }[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await db.send(
      new ScanCommand({
        TableName: tableName,
        FilterExpression: 'begins_with(pk, :p)',
        ExpressionAttributeValues: { ':p': 'SENDRATE#' },
        ExclusiveStartKey: start,
      }),
    );
    for (const item of page.Items ?? [])
      out.push({ second: Number(String(item.pk).slice('SENDRATE#'.length)), used: Number(item.used) });
    start = page.LastEvaluatedKey;
  } while (start);
  return out;
}

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
    // 60 messages at 20 a second, as scheduled: the limiter's one-second windows (what every
    // sender reserved its send slot in) hold at most 20 slots each, and the 60 sends took slots
    // in at least three of them. (The mail sink's stamps come a write or two after each slot, so
    // on a loaded machine they bunch by however long those writes took: they are not the rule.
    // How close to the rate a campaign comes is a machine's speed: bench:campaign measures it.)
    const windows = await rateWindows();
    expect(Math.max(...windows.map((w) => w.used))).toBeLessThanOrEqual(RATE);
    expect(windows.reduce((sum, w) => sum + w.used, 0)).toBeGreaterThanOrEqual(60);
    expect(windows.filter((w) => w.used > 0).length).toBeGreaterThanOrEqual(60 / RATE);
    // Never faster than the rate by more than the stamps' jitter: 60 mails span over two seconds.
    expect(seconds).toBeGreaterThan(2);
    for (const { p, id } of campaigns)
      expect((await p.api('GET', `/campaigns/${id}`)).body).toMatchObject({ status: 'SENT', sentCount: 30 });
  });
});
