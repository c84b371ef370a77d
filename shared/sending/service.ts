/**
 * `POST /v1/send`, the use case behind the route: everything that can refuse the request
 * (validation, the template, Liquid syntax, the sender domain, link settings) is checked before
 * anything is written. The transactional monthly cap is reserved for the whole request
 * (shared/billing/caps.ts: all or nothing, 403 `BILLING_LIMIT_REACHED`), and what did not go out
 * is given back at the end; without a cap nothing is reserved, and the event tally counts the
 * emails sent. Then each recipient is processed one after another: its
 * contact upserted, its email composed (`compose.ts`: subscription rule of the content type,
 * rendering, MIME) and delivered (`deliver.ts`: record, provider call under the request's retry
 * budget, lifecycle event). What the request answers when no recipient could be sent (422, 502
 * or 503) is decided here, not by compose or deliver, which campaigns and workflows call too.
 */
import { type Reservation, releaseSends, reserveOrRefuse } from '../billing/caps';
import { type DataPatch, parseDataPatch } from '../contacts/data';
import { upsertContact } from '../contacts/service';
import { requireVerifiedSenderDomain } from '../domains/sender';
import { suppressedAmong } from '../email-events/repository';
import { AppError, notFound, validationError } from '../errors';
import type { Claim } from '../http/idempotency';
import type { Deps } from '../ports';
import { type CompiledTemplate, compileAllAsync } from '../rendering';
import { linkSettings } from '../subscriptions/links';
import { findTemplate } from '../templates/service';
import { composeEmail, type EmailContent, type Recipient } from './compose';
import { type DeliveryPolicy, deliverEmail, resumeEmail } from './deliver';
import type { MimeAttachment } from './mime';
import type { EmailIds, SentEmail } from './outcomes';
import { type Address, cleanBase64, MAX_MESSAGE_BYTES, type SendRequest } from './schemas';

export { withFooter } from './compose';
export { EMAIL_FAILED, EMAIL_SENT, type RecipientStatus, type SentEmail } from './outcomes';

export type SendDeps = Pick<Deps, 'store' | 'clock' | 'ids' | 'queue' | 'mailer' | 'config'>;

/** Provider calls per message when the provider asks to retry (throttling, its own faults). */
export const SEND_ATTEMPTS = 4;
/**
 * Retries stop once a request has spent this long, so a throttled provider cannot push a
 * 50-recipient request past the API's 29 s limit (later recipients then get one attempt each).
 */
const RETRY_BUDGET_MS = 15_000;

/** Failures caused by the request's own content rather than by the provider. */
const CONTENT_FAILURES: ReadonlySet<string> = new Set(['RENDER_ERROR', 'MESSAGE_TOO_LARGE']);

export interface SendResult {
  readonly emails: SentEmail[];
  readonly timestamp: string;
}

/** The request made ready: content for every recipient, its data, and its delivery policy. */
interface PreparedSend {
  readonly content: EmailContent;
  /** The request's `data`: patched into each contact and rendered over its data. */
  readonly patch: DataPatch;
  /** The request's retry budget: it must answer within the API's limit. */
  readonly policy: DeliveryPolicy;
}

/**
 * Sends to every recipient. Under an Idempotency-Key `claim`, each recipient's record and event
 * ids derive from the claim, so an attempt that resumes a dead one finds what it did: recipients
 * already sent or skipped are answered from their records (and their `email.sent` event is
 * emitted if the crash came before it), one left SENDING is `unknown` and not sent again, a
 * failed one is tried again, and the rest are sent.
 */
export async function sendEmails(
  deps: SendDeps,
  projectId: string,
  input: SendRequest,
  claim?: Claim,
): Promise<SendResult> {
  const prepared = await prepare(deps, projectId, input);
  // The project's suppression list, for every recipient at once (one batch read).
  const suppressed = await suppressedAmong(
    deps,
    projectId,
    input.to.map((to) => to.email),
  );
  const ids: EmailIds[] = input.to.map((_, i) =>
    claim
      ? {
          email: claim.id(`email:${i}`),
          sentEvent: claim.id(`sent:${i}`),
          failedEvent: claim.id(`failed:${i}`),
        }
      : { email: deps.ids.uuid(), sentEvent: deps.ids.uuid(), failedEvent: deps.ids.uuid() },
  );
  // A resumed claim's dead attempt may have sent already: its key is never given back from here
  // on, and what it settled is answered from the records.
  if (claim?.resumed) claim.markStarted();
  const priors: (SentEmail | undefined)[] = [];
  for (const emailIds of ids)
    priors.push(claim?.resumed ? await resumeEmail(deps, projectId, emailIds) : undefined);
  // The monthly cap, all or nothing: a request that would pass it is refused (403) before any
  // recipient is processed. Suppressed recipients and those a dead attempt settled need no room.
  const reserved = (i: number) => !priors[i] && !suppressed.has(input.to[i]!.email.toLowerCase());
  const reservation = await reserveOrRefuse(
    deps,
    projectId,
    'transactional',
    input.to.filter((_, i) => reserved(i)).length,
  );
  const emails: SentEmail[] = [];
  // Reserved recipients that reached the provider, or may have (the one in flight when an error
  // stops the loop): the rest of the reservation is given back.
  let handed = 0;
  try {
    for (const [i, to] of input.to.entries()) {
      if (claim && !claim.held())
        throw new Error('The Idempotency-Key lease ran out before every recipient was processed');
      claim?.markStarted();
      const prior = priors[i];
      if (prior) {
        emails.push(prior);
        continue;
      }
      if (reserved(i)) handed++;
      const email = await sendTo(deps, projectId, prepared, to, input.subscribed, ids[i]!, {
        suppressed: suppressed.has(to.email.toLowerCase()),
        // No cap, nothing reserved: the email's `email.sent` is counted by the event tally.
        ...(reservation.tally ? { tallyUsage: reservation.category } : {}),
      });
      if (reserved(i) && email.status !== 'sent') handed--;
      emails.push(email);
    }
  } finally {
    await releaseUnsent(deps, reservation, reservation.granted - handed);
  }
  const refused = unsentError(emails);
  if (refused) throw refused;
  return { emails, timestamp: deps.clock.now().toISOString() };
}

/** Gives back what a request reserved and did not send; a failure to is logged, not thrown over the answer. */
async function releaseUnsent(deps: SendDeps, reservation: Reservation, count: number): Promise<void> {
  try {
    await releaseSends(deps, reservation, count);
  } catch (error) {
    // The counter stays high by `count` (the cap errs on the safe side); the request's own outcome stands.
    console.error(
      JSON.stringify({
        level: 'error',
        message: 'A send reservation could not be released',
        projectId: reservation.projectId,
        count,
        error: String((error as Error)?.message ?? error),
      }),
    );
  }
}

/**
 * What a request answers when none of its recipients could be sent: 422 when every failure came
 * from the request's own content, else 502 (or 503 when the provider only throttled) when every
 * recipient failed; undefined when the request succeeds (some were sent, skipped or unknown).
 */
export function unsentError(emails: SentEmail[]): AppError | undefined {
  const reached = emails.some((e) => e.status === 'sent' || e.status === 'unknown');
  const failed = emails.filter((e) => e.status === 'failed');
  if (!reached && failed.length > 0 && failed.every((e) => CONTENT_FAILURES.has(e.reason ?? ''))) {
    return contentFailed(emails, failed);
  }
  if (emails.every((e) => e.status === 'failed')) return sendFailed(emails);
  return undefined;
}

/** One recipient: its contact upserted with the request's data, then compose and deliver. */
async function sendTo(
  deps: SendDeps,
  projectId: string,
  p: PreparedSend,
  to: Address,
  subscribed: boolean | undefined,
  ids: EmailIds,
  how: Pick<Recipient, 'suppressed' | 'tallyUsage'>,
): Promise<SentEmail> {
  const { contact } = await upsertContact(
    deps,
    projectId,
    { email: to.email, subscribed, patch: p.patch, source: 'send' },
    // New contacts from a send are not subscribed unless the request says so.
    { defaultSubscribed: false },
  );
  const composed = await composeEmail(
    deps,
    projectId,
    p.content,
    { to, contact, data: p.patch, ...how },
    ids,
  );
  return composed.status === 'composed' ? deliverEmail(deps, composed, p.policy) : composed;
}

/** Checks and resolves the request's content; refuses it (throws) before anything is written. */
async function prepare(deps: SendDeps, projectId: string, input: SendRequest): Promise<PreparedSend> {
  const patch = parseDataPatch(input.data);
  const template = input.template ? await findTemplate(deps, projectId, input.template) : undefined;
  if (input.template && !template) throw notFound('Template');

  // Explicit request fields override the template's.
  const fromInput = input.from ?? (template ? { email: template.from } : undefined);
  if (!fromInput) {
    throw validationError([
      {
        field: 'from',
        message: 'from is required unless the template has one',
        code: 'invalid_type',
        received: 'undefined',
      },
    ]);
  }
  // `name` (deprecated) names the sender only when `from` is a plain address.
  const from: Address = {
    email: fromInput.email,
    name: fromInput.name ?? input.name ?? (input.from ? undefined : (template?.fromName ?? undefined)),
  };
  const subjectSource = input.subject ?? template?.subject ?? '';
  const bodySource = input.body ?? template?.body ?? '';
  const [subject, body] = (await compileAllAsync([
    { field: input.subject === undefined ? 'template' : 'subject', source: subjectSource, kind: 'text' },
    { field: input.body === undefined ? 'template' : 'body', source: bodySource, kind: 'html' },
  ])) as [CompiledTemplate, CompiledTemplate];

  const attachments: MimeAttachment[] = (input.attachments ?? []).map((a) => ({
    filename: a.filename,
    content: Buffer.from(cleanBase64(a.content), 'base64'),
    contentType: a.contentType,
    disposition: a.disposition,
    ...(a.contentId === undefined ? {} : { contentId: a.contentId }),
  }));
  // Base64 grows content by a third; with the body this bounds the message before any write.
  const estimate =
    attachments.reduce((n, a) => n + Math.ceil(a.content.length / 3) * 4, 0) +
    2 * Buffer.byteLength(bodySource);
  if (estimate > MAX_MESSAGE_BYTES) {
    throw validationError([
      {
        field: 'attachments',
        message: `The message would exceed ${MAX_MESSAGE_BYTES} bytes`,
        code: 'too_big',
        received: estimate,
      },
    ]);
  }

  const links = await linkSettings(deps.config);
  await requireVerifiedSenderDomain(deps, projectId, from.email);
  const content: EmailContent = {
    templateId: template?.id ?? null,
    // Content without a template is transactional (the endpoint's purpose).
    type: template?.type ?? 'TRANSACTIONAL',
    from,
    replyTo: input.reply ?? template?.replyTo ?? null,
    subject,
    body,
    bodyHasUnsubscribeLink: /\bunsubscribeUrl\b/.test(bodySource),
    headers: (input.headers ?? {}) as Record<string, string>,
    attachments,
    links,
  };
  const policy: DeliveryPolicy = {
    attempts: SEND_ATTEMPTS,
    retryDeadline: deps.clock.now().getTime() + RETRY_BUDGET_MS,
  };
  return { content, patch, policy };
}

/**
 * Nothing could be sent because of the request's own content (a template that hits the render
 * limits or fails, a message over the size limit): the caller's problem, so a 422 that names it.
 */
function contentFailed(emails: SentEmail[], failed: SentEmail[]): AppError {
  const render = failed.find((e) => e.reason === 'RENDER_ERROR');
  const first = render ?? failed[0]!;
  return new AppError(
    422,
    render ? 'TEMPLATE_RENDER_ERROR' : 'MESSAGE_TOO_LARGE',
    render
      ? `The template could not be rendered: ${first.error ?? 'unknown error'}`
      : `The message is too large: ${first.error ?? 'unknown size'}`,
    {
      details: { emails },
      suggestion: render
        ? 'Simplify the template (loops, output size) or the data it renders; see details.emails'
        : `Keep the whole message under ${MAX_MESSAGE_BYTES} bytes`,
    },
  );
}

/** Every recipient failed at the provider: nothing was sent, so the request fails. */
function sendFailed(emails: SentEmail[]): AppError {
  const retryable = emails.every((e) =>
    ['RATE_EXCEEDED', 'DAILY_QUOTA_EXCEEDED', 'SERVICE_ERROR'].includes(e.reason ?? ''),
  );
  const details = { emails };
  if (retryable) {
    return new AppError(
      503,
      'EMAIL_SEND_THROTTLED',
      'The email provider is throttling or unavailable; retry later',
      {
        details,
        headers: { 'Retry-After': '60' },
      },
    );
  }
  const first = emails[0];
  return new AppError(
    502,
    'EMAIL_SEND_FAILED',
    `The email could not be sent: ${first?.error ?? 'unknown error'}`,
    {
      details,
      suggestion: 'See details.emails for the reason of each recipient',
    },
  );
}
