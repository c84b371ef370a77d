/**
 * A SEND_EMAIL step: the step's template sent to the contact (or the step's custom address) with
 * the rules of every other send (shared/sending: rendering, suppression, subscription, footer, the
 * verified sender domain), its template seeing the contact's data plus `context` (the execution's
 * context) and `event` (the trigger event's data).
 *
 * Once per execution and step, as a campaign's recipient: the email's ids are derived from
 * (execution, step), and its record's first write is a conditional put, so only one attempt ever
 * calls the provider; any other reads the outcome from the record. A record still SENDING is an
 * attempt in flight (the step is tried again later) until the grace period after which no live
 * attempt can still hold it: then the send is `unknown` (it may have gone out) and never repeated.
 * The project's monthly workflows cap is reserved by that one attempt, after its claim and before
 * the provider call (shared/billing/caps.ts); over the cap the email is FAILED with reason
 * `BILLING_LIMIT_REACHED` and so is the step, which ends the execution FAILED. Without a cap the
 * email is marked for the event tally, which counts it once sent.
 */
import {
  BILLING_LIMIT_REACHED,
  capOf,
  capReachedMessage,
  type Reservation,
  releaseSends,
  reserveSends,
} from '../billing/caps';
import { nameUuid } from '../campaigns/ids';
import type { ContactRecord } from '../contacts/repository';
import { requireVerifiedSenderDomain } from '../domains/sender';
import { SENDING_GRACE_MS, suppressedAmong } from '../email-events/repository';
import { AppError } from '../errors';
import type { Deps } from '../ports';
import { type CompiledTemplate, compileAllAsync } from '../rendering';
import { composeEmail, type EmailContent } from '../sending/compose';
import { deliverEmail, resumeEmail } from '../sending/deliver';
import type { EmailIds, SentEmail } from '../sending/outcomes';
import { getEmailRecord } from '../sending/repository';
import { linkSettings } from '../subscriptions/links';
import { getTemplateRecord } from '../templates/repository';
import type { ExecutionRecord } from './executions-repository';
import type { SendEmailConfig } from './model';
import { SendInFlightError } from './step-errors';

/** The email and event ids of the step's email in the execution. */
export function workflowEmailIds(executionId: string, stepId: string): EmailIds {
  const base = `sesame:workflow:${executionId}:${stepId}`;
  return {
    email: nameUuid(`${base}:email`),
    sentEvent: nameUuid(`${base}:sent`),
    failedEvent: nameUuid(`${base}:failed`),
  };
}

export type SendStepOutcome =
  | { readonly ok: true; readonly result: string; readonly emailId: string }
  | { readonly ok: false; readonly error: string };

const POLICY = { attempts: 4, backoffMs: 500 };

export async function runSendEmailStep(
  deps: Deps,
  execution: ExecutionRecord,
  stepId: string,
  config: SendEmailConfig,
  contact: ContactRecord,
): Promise<SendStepOutcome> {
  const { projectId } = execution;
  const ids = workflowEmailIds(execution.id, stepId);
  const earlier = await earlierAttempt(deps, projectId, ids);
  if (earlier) return outcomeOf(earlier);

  const template = await getTemplateRecord(deps, projectId, config.templateId);
  if (!template) return { ok: false, error: `Template ${config.templateId} not found` };
  const [subject, body] = (await compileAllAsync([
    { field: 'template', source: template.subject, kind: 'text' },
    { field: 'template', source: template.body, kind: 'html' },
  ])) as [CompiledTemplate, CompiledTemplate];
  try {
    await requireVerifiedSenderDomain(deps, projectId, template.from);
  } catch (error) {
    if (error instanceof AppError) return { ok: false, error: error.message };
    throw error;
  }
  const content: EmailContent = {
    templateId: template.id,
    type: template.type,
    from: { email: template.from, ...(template.fromName ? { name: template.fromName } : {}) },
    replyTo: template.replyTo,
    subject,
    body,
    bodyHasUnsubscribeLink: /\bunsubscribeUrl\b/.test(template.body),
    headers: {},
    attachments: [],
    links: await linkSettings(deps.config),
  };
  const to = config.recipient.type === 'CUSTOM' ? config.recipient.email : contact.email;
  const [suppressed, cap] = await Promise.all([
    suppressedAmong(deps, projectId, [to]),
    capOf(deps, projectId, 'workflows'),
  ]);
  const composed = await composeEmail(
    deps,
    projectId,
    content,
    {
      to: { email: to },
      contact,
      // Rendered over the contact's data, stored nowhere.
      data: {
        set: {},
        remove: [],
        transient: {
          context: execution.context as never,
          event: (execution.trigger?.data ?? {}) as never,
        },
      },
      suppressed: suppressed.has(to.toLowerCase()),
      // A snoozed contact gets no MARKETING or HEADLESS mail from a workflow until its snooze ends.
      honourSnooze: true,
      // No cap: nothing to reserve, and the event tally counts the email once it is sent.
      ...(cap === null ? { tallyUsage: 'workflows' as const } : {}),
    },
    ids,
  );
  if (composed.status !== 'composed') return outcomeOf(composed);
  // The workflows cap, reserved once the claim landed (so a redelivery never counts it again); a
  // refusal settles the email FAILED with reason BILLING_LIMIT_REACHED, and the step fails.
  let reservation: Reservation | undefined;
  const admit = async () => {
    reservation = await reserveSends(deps, projectId, 'workflows', 1, 'all', { cap });
    if (reservation.granted === 1) return undefined;
    return { reason: BILLING_LIMIT_REACHED, message: capReachedMessage('workflows') };
  };
  // Its outcome is its `email.sent` event, stamped at the claim: no write of SENT on the record
  // (as a campaign recipient's, shared/campaigns/fanout.ts).
  const claimed = { ...composed, record: { ...composed.record, sentEventId: ids.sentEvent } };
  const sent = await deliverEmail(deps, claimed, POLICY, {
    claim: true,
    ...(cap === null ? {} : { admit }),
  });
  // Reserved but refused by the provider: not sent, so not counted.
  if (reservation && sent && sent.status !== 'sent') await releaseSends(deps, reservation, 1);
  if (sent) return outcomeOf(sent);
  // Another attempt claimed it between our read and our claim.
  const other = await earlierAttempt(deps, projectId, ids);
  if (!other) throw new SendInFlightError('The step email was claimed and given back; retrying');
  return outcomeOf(other);
}

/** What an earlier attempt left: undefined when the email is still to be sent. */
async function earlierAttempt(deps: Deps, projectId: string, ids: EmailIds): Promise<SentEmail | undefined> {
  const prior = await resumeEmail(deps, projectId, ids);
  if (prior?.status !== 'unknown') return prior;
  const record = await getEmailRecord(deps, projectId, ids.email, { consistent: true });
  // Held since its claim (SES's events may have changed `updatedAt` of one whose outcome is its event).
  const since = record?.sentEventId === undefined ? record?.updatedAt : record.createdAt;
  const age = deps.clock.now().getTime() - Date.parse(since ?? '');
  if (record && age < SENDING_GRACE_MS)
    throw new SendInFlightError('The step email is being sent by another attempt');
  return prior;
}

function outcomeOf(email: SentEmail): SendStepOutcome {
  switch (email.status) {
    case 'sent':
      return { ok: true, result: 'sent', emailId: email.email };
    case 'skipped':
      return { ok: true, result: `skipped: ${email.reason ?? 'skipped'}`, emailId: email.email };
    case 'unknown':
      return { ok: true, result: 'unknown', emailId: email.email };
    case 'failed':
      return {
        ok: false,
        error: `Email not sent (${email.reason ?? 'failed'}): ${email.error ?? ''}`.trim(),
      };
  }
}
