/**
 * Settling a run's `unknown` recipients: the contacts a fan-out batch counted `unknown` because
 * their claim had no outcome (a runner stopped between its claim and the `email.sent` write),
 * kept on the run (`unknownIds`, at most the sends in flight when a runner stopped), so that they
 * are found without a scan. A checkpoint that counts some queues the settle (a `campaign.send`
 * message with `settle`), delayed past `SENDING_GRACE_MS`, after which no sender can hold a claim.
 * Each recipient then moves from `unknown` to its outcome (`settleRunUnknown`: once, whatever the
 * number of copies of the message):
 *
 * - its `email.sent` is stored (the other runner of a batch sent it, or SES's Send event settled
 *   it: shared/email-events/apply.ts), or it was settled failed or skipped: that outcome;
 * - its record has a message id but no `email.sent` yet: SES accepted it (its Send event sets the
 *   id as soon as it comes, shared/email-events/repository.ts) and settles it after the grace
 *   period; looked at again later;
 * - neither, past the grace period: SES never accepted it (SES publishes a Send event, through the
 *   configuration set, for every message it accepts; locally the mail sink publishes it with its
 *   acceptance, shared/adapters/local/ses-events.ts). It is claimed again (`reclaimEmailRecord`,
 *   conditional on the claim as read and on no message id), rendered and sent at a slot of the
 *   send rate: exactly once, since only one re-claim lands and a re-claim that stops before SES
 *   answers is settled the same way one grace period later.
 */
import { RetryableSendError } from '../adapters/aws/send-errors';
import { getContactRecord } from '../contacts/repository';
import { SENDING_GRACE_MS } from '../email-events/repository';
import { emit } from '../events/emit';
import { enqueue } from '../jobs/registry';
import type { Deps } from '../ports';
import { type DeliveryPolicy, deliverEmail } from '../sending/deliver';
import { failedEvent } from '../sending/outcomes';
import {
  claimEmailRecord,
  type EmailRecord,
  getEmailRecord,
  readAttemptOutcome,
  reclaimEmailRecord,
  updateEmailRecord,
} from '../sending/repository';
import { linkSettings } from '../subscriptions/links';
import { campaignEmailIds } from './ids';
import { type CampaignSendMessage, campaignSendJobMessage } from './messages';
import {
  type CampaignRecord,
  type CampaignRun,
  getCampaignRecord,
  getCampaignRun,
  settleRunUnknown,
} from './repository';
import { accountSendRate, sendRateLimiter } from './send-rate';

/** Seconds past a claim's grace period before the settle looks at it (its Send event's settle comes first). */
const SETTLE_MARGIN_S = 30;
/** The settle's delay after the checkpoint that counted unknown recipients (SQS allows up to 900). */
export const SETTLE_DELAY_S = Math.ceil(SENDING_GRACE_MS / 1000) + SETTLE_MARGIN_S;
/** A recipient SES accepted, waiting for its Send event's settle: looked at again this much later. */
const RECHECK_S = 60;
/** The reason of a recipient settled failed because its contact was deleted before the resend. */
export const CONTACT_DELETED = 'CONTACT_DELETED';

type SettleMessage = CampaignSendMessage & { readonly settle: NonNullable<CampaignSendMessage['settle']> };

/** What became of one recipient: an outcome, or when to look again. */
type Settled = 'sent' | 'failed' | 'skipped' | 'recheck' | 'wait';

/**
 * Settles the message's recipients that are still `unknown` on the run, and queues the rest again:
 * those SES accepted (`recheck`, shortly) and those claimed since the message was queued (`wait`:
 * a whole grace period from now, so that no claim is sent again sooner than that after it was made,
 * whatever the queue's clock).
 */
export async function settleUnknown(deps: Deps, m: SettleMessage, delivery: DeliveryPolicy): Promise<void> {
  const run = await getCampaignRun(deps, m.projectId, m.campaignId);
  if (!run || run.runId !== m.runId) return;
  const pending = m.settle.ids.filter((id) => run.unknownIds.includes(id));
  if (pending.length === 0) return;
  const campaign = await getCampaignRecord(deps, m.projectId, m.campaignId, { consistent: true });
  if (!campaign || campaign.runId !== m.runId) return;
  const resender = lazyResender(deps, campaign, delivery);
  const again = { recheck: [] as string[], wait: [] as string[] };
  for (const contactId of pending) {
    const out = await settleOne(deps, campaign, run, contactId, m.settle.before, resender);
    if (out === 'recheck' || out === 'wait') again[out].push(contactId);
    else await settleRunUnknown(deps, run, contactId, out);
  }
  const now = deps.clock.now().toISOString();
  if (again.recheck.length > 0)
    await enqueue(
      deps,
      campaignSendJobMessage,
      { ...m, settle: { ids: again.recheck, before: m.settle.before } },
      { delaySeconds: RECHECK_S },
    );
  if (again.wait.length > 0)
    await enqueue(
      deps,
      campaignSendJobMessage,
      { ...m, settle: { ids: again.wait, before: now } },
      { delaySeconds: SETTLE_DELAY_S },
    );
}

/** One recipient's outcome, or when to look at it again. */
async function settleOne(
  deps: Deps,
  campaign: CampaignRecord,
  run: CampaignRun,
  contactId: string,
  before: string,
  resender: ReturnType<typeof lazyResender>,
): Promise<Settled> {
  const ids = campaignEmailIds(campaign.id, contactId);
  const record = await getEmailRecord(deps, campaign.projectId, ids.email, { consistent: true });
  if (record) {
    const outcome = await readAttemptOutcome(deps, record);
    if (outcome === 'settled') return 'sent';
    if (outcome !== 'sending') return outcome;
    // SES accepted it: its Send event settles it once the grace period is over.
    if (record.messageId !== null) return 'recheck';
    // Claimed (again) after this message was queued: its own grace period first.
    if (Date.parse(record.createdAt) > Date.parse(before)) return 'wait';
  }
  return (await resender())(run, contactId, record);
}

/** The resend, with what it needs (content, rendering, the send rate) loaded on first use. */
function lazyResender(deps: Deps, campaign: CampaignRecord, delivery: DeliveryPolicy) {
  let ready: Promise<
    (run: CampaignRun, contactId: string, record: EmailRecord | undefined) => Promise<Settled>
  >;
  return () => {
    ready ??= (async () => {
      const [{ campaignContent }, compose] = await Promise.all([
        import('./content'),
        import('../sending/compose'),
      ]);
      const content = campaignContent(campaign, await linkSettings(deps.config));
      const limiter = sendRateLimiter(deps, await accountSendRate(deps));
      return async (run, contactId, record) => {
        const { projectId } = campaign;
        const ids = campaignEmailIds(campaign.id, contactId);
        const contact = await getContactRecord(deps, projectId, contactId);
        // Its claim given back (throttled) and its contact deleted since: nobody to mail.
        if (!record && !contact) return 'failed';
        const at = deps.clock.now();
        const now = at.toISOString();
        const recipient = contact && {
          to: { email: record?.to ?? contact.email },
          contact,
          emailId: ids.email,
          ...(record?.tallyUsage ? { tallyUsage: record.tallyUsage } : {}),
        };
        const message = recipient && (await compose.renderMessage(projectId, content, recipient, at));
        const claimed: EmailRecord = record
          ? { ...record, createdAt: now, updatedAt: now }
          : {
              ...compose.newEmailRecord(projectId, content, recipient!, ids.email, at),
              subject: message!.subject,
              campaignId: campaign.id,
              campaignBatch: run.batch,
              sentEventId: ids.sentEvent,
            };
        // Never accepted by SES: claimed again (or anew, when its claim was given back), only once.
        const landed = record
          ? await reclaimEmailRecord(deps, record, now)
          : await claimEmailRecord(deps, claimed);
        // Claimed meanwhile (another copy of this message): looked at after its grace period.
        if (!landed) return 'wait';
        if (!message?.ok) {
          const failure = message
            ? { reason: message.reason, message: message.message, at: now }
            : {
                reason: CONTACT_DELETED,
                message: 'The contact was deleted before its email was sent',
                at: now,
              };
          await updateEmailRecord(deps, projectId, ids.email, {
            status: 'FAILED',
            reason: failure.reason,
            error: failure.message,
            updatedAt: now,
          });
          await emit(deps, failedEvent(claimed, ids.failedEvent, failure));
          return 'failed';
        }
        const [slot] = await limiter.reserve(1);
        await limiter.until(slot!);
        const composed = {
          status: 'composed' as const,
          record: claimed,
          raw: message.raw,
          contact: { id: contactId, email: claimed.to },
          ids,
        };
        try {
          const out = await deliverEmail(deps, composed, delivery, {
            claimed: true,
            releaseWhenRetryable: true,
          });
          return out?.status === 'sent' ? 'sent' : 'failed';
        } catch (error) {
          // Throttled past the policy's retries: the claim was given back; a later settle claims it anew.
          if (error instanceof RetryableSendError) return 'wait';
          throw error;
        }
      };
    })();
    return ready;
  };
}
