/**
 * Composing one email: from content shared by every recipient of a send (a `/v1/send` request, a
 * campaign, a workflow's SEND_EMAIL step) and one recipient, the MIME message that `deliverEmail`
 * hands to the provider, or the settled outcome of an email that never gets that far (skipped by
 * the subscription rule of its content type, or failed to render). Nothing here knows about HTTP,
 * retries or how a caller answers.
 */

import type { SendCategory } from '../billing/repository';
import { type DataPatch, mergeForRender } from '../contacts/data';
import type { ContactRecord } from '../contacts/repository';
import { isSnoozed } from '../contacts/snooze';
import { DEFAULT_LANGUAGE } from '../i18n/catalogue';
import { languageOf, messagesOf } from '../i18n/locale';
import {
  type CompiledTemplate,
  htmlToText,
  RenderError,
  render,
  renderSubject,
  templateVariables,
} from '../rendering';
import {
  type DerivedBody,
  deriveBody,
  deriveText,
  renderBody,
  textFromValues,
} from '../rendering/text-template';
import { literalUnsafeUrls, neutralizeUrls } from '../rendering/urls';
import { type LinkSettings, subscriptionLinks } from '../subscriptions/links';
import { escapeHtml } from '../subscriptions/pages';
import type { TemplateType } from '../templates/schemas';
import { buildMimeLean, type MimeAttachment } from './mime';
import { type EmailIds, type OutcomeDeps, recordFailure, type SentEmail } from './outcomes';
import { type EmailRecord, putEmailRecord } from './repository';
import { type Address, MAX_MESSAGE_BYTES } from './schemas';

/** What every recipient of one send shares: resolved content, parsed templates, attachments. */
export interface EmailContent {
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
  /** How subscription links are signed and where they point. */
  readonly links: LinkSettings;
}

/** One recipient: the address mailed and the contact it belongs to. */
export interface Recipient {
  readonly to: Address;
  readonly contact: ContactRecord;
  /**
   * Data rendered over the contact's own (a request's `data`, non-persistent values included);
   * it changes nothing stored.
   */
  readonly data?: DataPatch;
  /** The address is on the project's suppression list: the email is recorded SKIPPED, never sent. */
  readonly suppressed?: boolean;
  /**
   * The send honours the contact's `snoozedUntil` (campaigns and workflows do, `/v1/send` does
   * not): MARKETING and HEADLESS mail to a contact snoozed past now is recorded SKIPPED, reason
   * `snoozed`.
   */
  readonly honourSnooze?: boolean;
  /** Its send is counted by the event tally (`EmailRecord.tallyUsage`): the category had no cap. */
  readonly tallyUsage?: SendCategory;
  /**
   * The email this message is: its subscription links name it, so that an unsubscribe through
   * them is credited to the email and its campaign. None for a test send.
   */
  readonly emailId?: string;
}

/** An email ready for the provider; its record is not written yet (`deliverEmail` does that first). */
export interface ComposedEmail {
  readonly status: 'composed';
  /** The record as it is written before the provider call: status SENDING, subject rendered. */
  readonly record: EmailRecord;
  /** The MIME message. */
  readonly raw: Buffer;
  /** The recipient's contact as the result names it. */
  readonly contact: { readonly id: string; readonly email: string };
  readonly ids: EmailIds;
}

/** An email settled without the provider: recorded (and `email.failed` emitted for a failure). */
export type SettledEmail = SentEmail & { readonly status: 'skipped' | 'failed' };

export type ComposeDeps = OutcomeDeps;

/**
 * Composes the email of `recipient` under `ids`. A suppressed address is recorded SKIPPED
 * (reason `suppressed`) whatever the content; MARKETING and HEADLESS content respects the
 * contact's subscription (an unsubscribed contact is recorded SKIPPED) and, when the send honours
 * it, its snooze (reason `snoozed`); TRANSACTIONAL otherwise goes out. A template that fails to render, or a message over the size limit, is recorded FAILED
 * with its `email.failed` event. Only a `composed` email still needs `deliverEmail`.
 */
export async function composeEmail(
  deps: ComposeDeps,
  projectId: string,
  content: EmailContent,
  recipient: Recipient,
  ids: EmailIds,
): Promise<ComposedEmail | SettledEmail> {
  const { contact } = recipient;
  const now = deps.clock.now();
  const record = newEmailRecord(projectId, content, recipient, ids.email, now);
  const entry = { contact: { id: contact.id, email: contact.email }, email: record.id };

  if (recipient.suppressed) {
    await putEmailRecord(deps, { ...record, status: 'SKIPPED', reason: 'suppressed' });
    return { ...entry, status: 'skipped', reason: 'suppressed' };
  }
  if (content.type !== 'TRANSACTIONAL' && !contact.subscribed) {
    await putEmailRecord(deps, { ...record, status: 'SKIPPED', reason: 'unsubscribed' });
    return { ...entry, status: 'skipped', reason: 'unsubscribed' };
  }
  if (content.type !== 'TRANSACTIONAL' && recipient.honourSnooze && isSnoozed(contact, now)) {
    await putEmailRecord(deps, { ...record, status: 'SKIPPED', reason: 'snoozed' });
    return { ...entry, status: 'skipped', reason: 'snoozed' };
  }

  const message = await renderMessage(projectId, content, { ...recipient, emailId: ids.email }, now);
  if (!message.ok) {
    const failure = { reason: message.reason, message: message.message, eventId: ids.failedEvent };
    return recordFailure(deps, { ...record, subject: message.subject }, failure, entry);
  }
  return {
    status: 'composed',
    record: { ...record, subject: message.subject },
    raw: message.raw,
    contact: entry.contact,
    ids,
  };
}

/**
 * The record of one recipient's email as it is first written: status SENDING, subject not yet
 * rendered. `composeEmail` settles or completes it; a campaign claims its recipient with it.
 */
export function newEmailRecord(
  projectId: string,
  content: EmailContent,
  recipient: Recipient,
  emailId: string,
  now: Date,
): EmailRecord {
  return {
    id: emailId,
    projectId,
    contactId: recipient.contact.id,
    to: recipient.to.email,
    from: content.from.email,
    fromName: content.from.name ?? null,
    replyTo: content.replyTo,
    subject: '',
    templateId: content.templateId,
    type: content.type,
    status: 'SENDING',
    messageId: null,
    reason: null,
    error: null,
    createdAt: now.toISOString(),
    sentAt: null,
    updatedAt: now.toISOString(),
    ...(recipient.tallyUsage ? { tallyUsage: recipient.tallyUsage } : {}),
  };
}

/** One recipient's message as the provider gets it, or why it cannot be made. */
export type RenderedMessage =
  | { readonly ok: true; readonly subject: string; readonly raw: Buffer }
  | {
      readonly ok: false;
      /** What was rendered of the subject before the failure ('' when the subject failed). */
      readonly subject: string;
      readonly reason: 'RENDER_ERROR' | 'MESSAGE_TOO_LARGE';
      readonly message: string;
    };

/**
 * Renders one recipient's message: subject, body with the footer and list headers of the
 * content's type (MARKETING: footer unless the body links to `unsubscribeUrl`, and the
 * List-Unsubscribe headers; HEADLESS: the headers only; TRANSACTIONAL: neither), plain text and
 * MIME. Pure: it writes nothing and applies no subscription rule (`composeEmail` does both), so a
 * campaign can claim the email first and a test send can mail an address that is no contact.
 */
export async function renderMessage(
  projectId: string,
  content: EmailContent,
  recipient: Recipient,
  now: Date,
): Promise<RenderedMessage> {
  const { to, contact } = recipient;
  const links = subscriptionLinks(content.links, projectId, contact.id, recipient.emailId);
  const data = recipient.data ? mergeForRender(contact.data, recipient.data) : contact.data;
  const variables = templateVariables({
    data,
    email: to.email,
    contactId: contact.id,
    links,
  });
  let subject = '';
  let raw: Buffer;
  try {
    subject = await renderSubject(content.subject, variables);
    const footer = content.type === 'MARKETING' && !content.bodyHasUnsubscribeLink;
    const { html, text } = await renderContent(
      content,
      variables,
      footer ? links.unsubscribeUrl : undefined,
      languageOf(data.locale),
    );
    raw = await buildMimeLean({
      from: content.from,
      to,
      replyTo: content.replyTo,
      subject,
      html,
      text,
      date: now,
      headers: content.headers,
      ...(content.type === 'TRANSACTIONAL' ? {} : { listUnsubscribeUrl: links.unsubscribeUrl }),
      attachments: content.attachments,
    });
  } catch (error) {
    if (!(error instanceof RenderError)) throw error;
    return { ok: false, subject, reason: 'RENDER_ERROR', message: error.message };
  }
  if (raw.length > MAX_MESSAGE_BYTES)
    return { ok: false, subject, reason: 'MESSAGE_TOO_LARGE', message: `The message is ${raw.length} bytes` };
  return { ok: true, subject, raw };
}

/** What is derived once per content: the body's outputs and its text template (see text-template.ts). */
const derivedBodies = new WeakMap<EmailContent, DerivedBody | null>();
/** Messages of one content rendered the whole way so far (before it is worth deriving). */
const plainUses = new WeakMap<EmailContent, number>();
/**
 * Deriving a text template costs several html-to-text conversions (its equivalence checks), about
 * what three messages save: one-off sends (most of `/v1/send`) never derive, fan-outs do.
 */
export const DERIVE_AFTER_MESSAGES = 3;

/**
 * The body's HTML (with the footer of `footerUrl` when given) and its plain text: from the
 * content's derived text template when it has one and the message's values are plain, else
 * rendered and converted as a whole. Both ways give the same HTML and text. Every send path
 * (`/v1/send`, campaigns and their test sends, workflows) renders here, so here a URL attribute
 * that rendering made unsafe (a `javascript:` link from contact data) becomes `about:blank`
 * (shared/rendering/urls.ts), and the text is converted again from the HTML that is sent.
 */
export async function renderContent(
  content: EmailContent,
  variables: Record<string, unknown>,
  footerUrl: string | undefined,
  language: string = DEFAULT_LANGUAGE,
): Promise<{ html: string; text: string }> {
  const rendered = await renderUnchecked(content, variables, footerUrl, language);
  let literals = literalUrls.get(content.body);
  if (!literals) {
    literals = literalUnsafeUrls(content.body.source);
    literalUrls.set(content.body, literals);
  }
  const html = neutralizeUrls(rendered.html, literals);
  return html === rendered.html ? rendered : { html, text: htmlToText(html) };
}

/** The unsafe URLs each body's own text writes (left as the author wrote them), read once. */
const literalUrls = new WeakMap<CompiledTemplate, ReadonlySet<string>>();

async function renderUnchecked(
  content: EmailContent,
  variables: Record<string, unknown>,
  footerUrl: string | undefined,
  language: string,
): Promise<{ html: string; text: string }> {
  const footer = (html: string, url: string) => withFooter(html, url, language);
  let body = derivedBodies.get(content);
  if (body === undefined && (plainUses.get(content) ?? 0) < DERIVE_AFTER_MESSAGES) {
    plainUses.set(content, (plainUses.get(content) ?? 0) + 1);
  } else if (body === undefined) {
    body = deriveBody(content.body) ?? null;
    derivedBodies.set(content, body);
  }
  if (body) {
    // One text template per footer language: the footer's words are part of it.
    const key: 'plain' | `footer:${string}` = footerUrl === undefined ? 'plain' : `footer:${language}`;
    let derived = body.text[key];
    if (derived === undefined) {
      derived = deriveText(body, footerUrl === undefined ? undefined : footer);
      body.text[key] = derived;
    }
    if (derived) {
      let rendered: { html: string; values: string[] } | undefined;
      try {
        rendered = renderBody(content.body, body, variables);
      } catch (error) {
        // The whole render below reports a render failure as it always has.
        if (!(error instanceof RenderError)) throw error;
      }
      if (rendered) {
        const html = footerUrl === undefined ? rendered.html : footer(rendered.html, footerUrl);
        const text = textFromValues(derived, rendered.values, footerUrl);
        return { html, text: text ?? htmlToText(html) };
      }
    }
  }
  let html = await render(content.body, variables);
  if (footerUrl !== undefined) html = footer(html, footerUrl);
  return { html, text: htmlToText(html) };
}

/**
 * Appends the unsubscribe footer before `</body>` (or at the end), in `language` (a catalogue
 * tag, shared/i18n: the recipient's `data.locale`).
 */
export function withFooter(
  html: string,
  unsubscribeUrl: string,
  language: string = DEFAULT_LANGUAGE,
): string {
  const href = unsubscribeUrl.replace(/&/g, '&amp;').replace(/"/g, '&quot;');
  const t = messagesOf(language);
  const footer =
    '<p style="margin-top:32px;font-size:12px;color:#6b7280;text-align:center">' +
    `${escapeHtml(t.footer)} <a href="${href}">${escapeHtml(t.footerLink)}</a></p>`;
  const at = html.search(/<\/body\s*>/i);
  return at < 0 ? `${html}${footer}` : `${html.slice(0, at)}${footer}${html.slice(at)}`;
}
