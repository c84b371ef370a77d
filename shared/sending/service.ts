/**
 * `POST /v1/send`: everything that can refuse the request (validation, the template, Liquid
 * syntax, the sender domain, link settings) is checked before anything is written. Then each
 * recipient is processed one after another (spec rule 2): contact upsert, subscription rule of
 * the content type, rendering, MIME, send with retries, email record and lifecycle event.
 */
import { PermanentSendError, RetryableSendError } from '../adapters/aws/send-errors';
import { type DataPatch, mergeForRender, parseDataPatch } from '../contacts/data';
import { upsertContact } from '../contacts/service';
import { requireVerifiedSenderDomain } from '../domains/sender';
import { AppError, notFound, validationError } from '../errors';
import { putEvent } from '../events/repository';
import type { Claim } from '../http/idempotency';
import type { Deps } from '../ports';
import {
  type CompiledTemplate,
  compileAll,
  htmlToText,
  RenderError,
  render,
  renderSubject,
  templateVariables,
} from '../rendering';
import { sleep } from '../store/dynamo';
import { type LinkSettings, linkSettings, subscriptionLinks } from '../subscriptions/links';
import type { TemplateType } from '../templates/schemas';
import { findTemplate } from '../templates/service';
import { buildMime, type MimeAttachment } from './mime';
import { type EmailRecord, getEmailRecord, putEmailRecord, updateEmailRecord } from './repository';
import { type Address, cleanBase64, MAX_MESSAGE_BYTES, type SendRequest } from './schemas';

export type SendDeps = Pick<Deps, 'db' | 'tableName' | 'clock' | 'ids' | 'queue' | 'mailer' | 'config'>;

export const EMAIL_SENT = 'email.sent';
export const EMAIL_FAILED = 'email.failed';

/** Provider calls per message when the provider asks to retry (throttling, its own faults). */
export const SEND_ATTEMPTS = 4;
const BACKOFF_BASE_MS = 200;
/**
 * Retries stop once a request has spent this long, so a throttled provider cannot push a
 * 50-recipient request past the API's 29 s limit (later recipients then get one attempt each).
 */
const RETRY_BUDGET_MS = 15_000;

/**
 * `unknown`: an earlier attempt of this request (same Idempotency-Key) stopped while the provider
 * call for this recipient was in flight; it may have gone out, so it is never sent again.
 */
export type RecipientStatus = 'sent' | 'skipped' | 'failed' | 'unknown';

/** Failures caused by the request's own content rather than by the provider. */
const CONTENT_FAILURES: ReadonlySet<string> = new Set(['RENDER_ERROR', 'MESSAGE_TOO_LARGE']);

/** One entry of the Send result; `status` and `reason` extend the spec's `{contact, email}`. */
export interface SentEmail {
  readonly contact: { readonly id: string; readonly email: string };
  /** The email record id, `emailId` in lifecycle events. */
  readonly email: string;
  readonly status: RecipientStatus;
  /** Why it was skipped or failed (`unsubscribed`, `RENDER_ERROR`, a provider reason). */
  readonly reason?: string;
  readonly error?: string;
}

export interface SendResult {
  readonly emails: SentEmail[];
  readonly timestamp: string;
}

/** What every recipient of one request shares: resolved content, parsed templates, attachments. */
interface Prepared {
  readonly templateId: string | null;
  readonly type: TemplateType;
  readonly from: Address;
  readonly replyTo: string | null;
  readonly subject: CompiledTemplate;
  readonly body: CompiledTemplate;
  /** The body links to the unsubscribe page itself, so no footer is added. */
  readonly bodyHasUnsubscribeLink: boolean;
  readonly headers: Readonly<Record<string, string>>;
  readonly attachments: readonly MimeAttachment[];
  readonly patch: DataPatch;
  readonly subscribed: boolean | undefined;
  readonly links: LinkSettings;
  /** Epoch ms after which provider calls are not retried. */
  readonly retryDeadline: number;
}

/** Ids of one recipient's email record and events; derived from the claim when there is a key. */
interface RecipientIds {
  readonly email: string;
  readonly sentEvent: string;
  readonly failedEvent: string;
}

/**
 * Sends to every recipient. Under an Idempotency-Key `claim`, each recipient's record and event
 * ids derive from the claim, so an attempt that resumes a dead one finds what it did: recipients
 * already sent or skipped are answered from their records (and their `email.sent` event is
 * written if the crash came before it), one left SENDING is `unknown` and not sent again, a
 * failed one is tried again, and the rest are sent.
 */
export async function sendEmails(
  deps: SendDeps,
  projectId: string,
  input: SendRequest,
  claim?: Claim,
): Promise<SendResult> {
  const prepared = await prepare(deps, projectId, input);
  const emails: SentEmail[] = [];
  for (const [i, recipient] of input.to.entries()) {
    const ids: RecipientIds = claim
      ? {
          email: claim.id(`email:${i}`),
          sentEvent: claim.id(`sent:${i}`),
          failedEvent: claim.id(`failed:${i}`),
        }
      : { email: deps.ids.uuid(), sentEvent: deps.ids.uuid(), failedEvent: deps.ids.uuid() };
    if (claim && !claim.held())
      throw new Error('The Idempotency-Key lease ran out before every recipient was processed');
    claim?.markStarted();
    const prior = claim?.resumed ? await resumeOne(deps, projectId, ids) : undefined;
    emails.push(prior ?? (await sendOne(deps, projectId, prepared, recipient, ids)));
  }
  const reached = emails.some((e) => e.status === 'sent' || e.status === 'unknown');
  const failed = emails.filter((e) => e.status === 'failed');
  if (!reached && failed.length > 0 && failed.every((e) => CONTENT_FAILURES.has(e.reason ?? ''))) {
    throw contentFailed(emails, failed);
  }
  if (emails.every((e) => e.status === 'failed')) throw sendFailed(emails);
  return { emails, timestamp: deps.clock.now().toISOString() };
}

/** A recipient an earlier attempt of the same claim settled; undefined when it must be (re)sent. */
async function resumeOne(
  deps: SendDeps,
  projectId: string,
  ids: RecipientIds,
): Promise<SentEmail | undefined> {
  const record = await getEmailRecord(deps, projectId, ids.email);
  if (!record || record.status === 'FAILED') return undefined;
  const entry = { contact: { id: record.contactId, email: record.to }, email: record.id };
  switch (record.status) {
    case 'SENT':
      // Conditional on the event id: written only if the crash came between record and event.
      await putEvent(deps, {
        id: ids.sentEvent,
        projectId,
        contactId: record.contactId,
        email: record.to,
        name: EMAIL_SENT,
        data: {
          emailId: record.id,
          messageId: record.messageId,
          subject: record.subject,
          from: record.from,
          templateId: record.templateId,
        },
        createdAt: record.sentAt ?? record.updatedAt,
      });
      return { ...entry, status: 'sent' };
    case 'SKIPPED':
      return { ...entry, status: 'skipped', reason: record.reason ?? 'unsubscribed' };
    case 'SENDING':
      return {
        ...entry,
        status: 'unknown',
        reason: 'OUTCOME_UNKNOWN',
        error: 'An earlier attempt stopped while this message was being handed to the provider',
      };
  }
}

async function prepare(deps: SendDeps, projectId: string, input: SendRequest): Promise<Prepared> {
  const patch = parseDataPatch(input.data);
  const template = input.template ? await findTemplate(deps, projectId, input.template) : undefined;
  if (input.template && !template) throw notFound('Template');

  // Explicit request fields override the template's (spec: template field).
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
  const [subject, body] = compileAll([
    { field: input.subject === undefined ? 'template' : 'subject', source: subjectSource, kind: 'text' },
    { field: input.body === undefined ? 'template' : 'body', source: bodySource, kind: 'html' },
  ]) as [CompiledTemplate, CompiledTemplate];

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
  return {
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
    patch,
    subscribed: input.subscribed,
    links,
    retryDeadline: deps.clock.now().getTime() + RETRY_BUDGET_MS,
  };
}

async function sendOne(
  deps: SendDeps,
  projectId: string,
  p: Prepared,
  to: Address,
  ids: RecipientIds,
): Promise<SentEmail> {
  const { contact } = await upsertContact(
    deps,
    projectId,
    { email: to.email, subscribed: p.subscribed, patch: p.patch, source: 'send' },
    // New contacts from a send are not subscribed unless the request says so (spec).
    { defaultSubscribed: false },
  );
  const now = deps.clock.now();
  const record: EmailRecord = {
    id: ids.email,
    projectId,
    contactId: contact.id,
    to: to.email,
    from: p.from.email,
    fromName: p.from.name ?? null,
    replyTo: p.replyTo,
    subject: '',
    templateId: p.templateId,
    type: p.type,
    status: 'SENDING',
    messageId: null,
    reason: null,
    error: null,
    createdAt: now.toISOString(),
    sentAt: null,
    updatedAt: now.toISOString(),
  };
  const entry = (status: RecipientStatus, extra: { reason?: string; error?: string } = {}): SentEmail => ({
    contact: { id: contact.id, email: contact.email },
    email: record.id,
    status,
    ...extra,
  });

  // MARKETING and HEADLESS content respects the subscription; TRANSACTIONAL always goes out.
  if (p.type !== 'TRANSACTIONAL' && !contact.subscribed) {
    await putEmailRecord(deps, { ...record, status: 'SKIPPED', reason: 'unsubscribed' });
    return entry('skipped', { reason: 'unsubscribed' });
  }

  const links = subscriptionLinks(p.links, projectId, contact.id);
  const variables = templateVariables({
    data: mergeForRender(contact.data, p.patch),
    email: to.email,
    contactId: contact.id,
    links,
  });
  let subject = '';
  let raw: Buffer;
  try {
    subject = await renderSubject(p.subject, variables);
    let html = await render(p.body, variables);
    if (p.type === 'MARKETING' && !p.bodyHasUnsubscribeLink) html = withFooter(html, links.unsubscribeUrl);
    raw = await buildMime({
      from: p.from,
      to,
      replyTo: p.replyTo,
      subject,
      html,
      text: htmlToText(html),
      date: now,
      headers: p.headers,
      ...(p.type === 'TRANSACTIONAL' ? {} : { listUnsubscribeUrl: links.unsubscribeUrl }),
      attachments: p.attachments,
    });
  } catch (error) {
    if (!(error instanceof RenderError)) throw error;
    return fail(deps, { ...record, subject }, 'RENDER_ERROR', error.message, entry, ids.failedEvent);
  }
  if (raw.length > MAX_MESSAGE_BYTES) {
    return fail(
      deps,
      { ...record, subject },
      'MESSAGE_TOO_LARGE',
      `The message is ${raw.length} bytes`,
      entry,
      ids.failedEvent,
    );
  }

  // The record exists before the provider is called, so a crash leaves a trace, not nothing.
  await putEmailRecord(deps, { ...record, subject });
  let messageId: string;
  try {
    ({ messageId } = await sendWithRetry(deps, p.retryDeadline, {
      from: p.from.email,
      to: [to.email],
      raw,
      tags: { projectId, emailId: record.id },
    }));
  } catch (error) {
    const reason = sendFailureReason(error);
    return fail(deps, { ...record, subject }, reason, (error as Error).message, entry, ids.failedEvent, true);
  }
  const sentAt = deps.clock.now().toISOString();
  await updateEmailRecord(deps, projectId, record.id, {
    status: 'SENT',
    messageId,
    sentAt,
    updatedAt: sentAt,
  });
  await putEvent(deps, {
    id: ids.sentEvent,
    projectId,
    contactId: contact.id,
    email: contact.email,
    name: EMAIL_SENT,
    data: { emailId: record.id, messageId, subject, from: p.from.email, templateId: p.templateId },
    createdAt: sentAt,
  });
  return entry('sent');
}

/** Records a failed message (record FAILED, `email.failed` event) and answers its entry. */
async function fail(
  deps: SendDeps,
  record: EmailRecord,
  reason: string,
  message: string,
  entry: (status: RecipientStatus, extra: { reason?: string; error?: string }) => SentEmail,
  eventId: string,
  recordExists = false,
): Promise<SentEmail> {
  const at = deps.clock.now().toISOString();
  if (recordExists) {
    await updateEmailRecord(deps, record.projectId, record.id, {
      status: 'FAILED',
      reason,
      error: message,
      updatedAt: at,
    });
  } else {
    await putEmailRecord(deps, { ...record, status: 'FAILED', reason, error: message, updatedAt: at });
  }
  await putEvent(deps, {
    id: eventId,
    projectId: record.projectId,
    contactId: record.contactId,
    email: record.to,
    name: EMAIL_FAILED,
    data: {
      emailId: record.id,
      subject: record.subject,
      from: record.from,
      templateId: record.templateId,
      reason,
      error: message,
    },
    createdAt: at,
  });
  return entry('failed', { reason, error: message });
}

/** Calls the provider, retrying with jittered exponential backoff while it asks to retry. */
async function sendWithRetry(
  deps: SendDeps,
  deadline: number,
  email: Parameters<SendDeps['mailer']['sendRaw']>[0],
) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await deps.mailer.sendRaw(email);
    } catch (error) {
      if (!(error instanceof RetryableSendError) || attempt >= SEND_ATTEMPTS) throw error;
      const delay = BACKOFF_BASE_MS * 2 ** (attempt - 1) * (0.5 + Math.random());
      if (deps.clock.now().getTime() + delay > deadline) throw error;
      await sleep(delay);
    }
  }
}

function sendFailureReason(error: unknown): string {
  if (error instanceof RetryableSendError || error instanceof PermanentSendError) return error.reason;
  return 'SEND_ERROR';
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

/** Appends the unsubscribe footer before `</body>` (or at the end). */
export function withFooter(html: string, unsubscribeUrl: string): string {
  const href = unsubscribeUrl.replace(/&/g, '&amp;').replace(/"/g, '&quot;');
  const footer =
    '<p style="margin-top:32px;font-size:12px;color:#6b7280;text-align:center">' +
    `You received this email because you subscribed. <a href="${href}">Unsubscribe</a></p>`;
  const at = html.search(/<\/body\s*>/i);
  return at < 0 ? `${html}${footer}` : `${html.slice(0, at)}${footer}${html.slice(at)}`;
}
