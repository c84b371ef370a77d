/**
 * The public subscription pages: small self-contained HTML (no script, inline style only) with
 * every dynamic value escaped, served with headers that keep them out of frames and caches and
 * keep the token out of Referer headers.
 */
import type { HttpResult } from '../http/response';
import type { Messages } from '../i18n/catalogue';
import { messagesOf } from '../i18n/locale';
import type { LinkAction } from './links';

/** Escapes text for HTML element content and double-quoted attributes. */
export function escapeHtml(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
} as const;

const STYLE =
  'body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;background:#f9fafb;color:#111827;' +
  'margin:0;padding:48px 16px}main{max-width:480px;margin:0 auto;background:#fff;border:1px solid #e5e7eb;' +
  'border-radius:8px;padding:32px}h1{font-size:20px;margin:0 0 16px}p{line-height:1.5}' +
  'button{font-size:15px;padding:10px 18px;border-radius:6px;border:1px solid #111827;background:#111827;' +
  'color:#fff;cursor:pointer}button.secondary{background:#fff;color:#111827}form{margin-top:24px}';

function page(statusCode: number, language: string, title: string, content: string): HttpResult {
  const body =
    `<!doctype html><html lang="${escapeHtml(language)}"><head><meta charset="utf-8">` +
    '<meta name="viewport" content="width=device-width,initial-scale=1">' +
    '<meta name="robots" content="noindex">' +
    `<title>${escapeHtml(title)}</title><style>${STYLE}</style></head>` +
    `<body><main><h1>${escapeHtml(title)}</h1>${content}</main></body></html>`;
  return { statusCode, headers: { ...PAGE_HEADERS }, body };
}

/** What a page's forms post: a subscription change, or (manage links only) a snooze. */
export type PageAction = 'subscribe' | 'unsubscribe' | 'snooze' | 'unsnooze';

function form(actionPath: string, action: PageAction, label: string, secondary = false) {
  return (
    `<form method="post" action="${escapeHtml(actionPath)}">` +
    `<input type="hidden" name="action" value="${action}">` +
    `<button type="submit"${secondary ? ' class="secondary"' : ''}>${escapeHtml(label)}</button></form>`
  );
}

export interface SubscriptionView {
  readonly email: string;
  readonly subscribed: boolean;
  /** What the link was made for; it decides the button offered. */
  readonly action: LinkAction;
  /** Path of this link (forms post back to it). */
  readonly selfPath: string;
  /** Path of the contact's manage link, offered after a change to undo it. */
  readonly managePath: string;
  /** Set after a POST: what just happened. */
  readonly changed?: 'subscribed' | 'unsubscribed' | 'unchanged' | 'snoozed' | 'resumed';
  /** The contact's snooze (`snoozedUntil`), shown on manage pages while it is still to come. */
  readonly snoozedUntil?: string | null;
  /** Now, to tell a snooze to come from one that has passed. */
  readonly now?: Date;
  /** The catalogue language the page is written in (i18n/locale.ts). */
  readonly language: string;
}

/** A catalogue text with `{email}` as the address in bold and `{until}` as a date, escaped. */
function withEmail(text: string, email: string, until = ''): string {
  return text
    .split('{email}')
    .map((part) => escapeHtml(part.replace('{until}', until)))
    .join(`<strong>${escapeHtml(email)}</strong>`);
}

/** A date as the page's language writes it (UTC). */
function dateIn(language: string, iso: string): string {
  return new Intl.DateTimeFormat(language, { dateStyle: 'long', timeZone: 'UTC' }).format(new Date(iso));
}

/** The manage page's snooze part: the paused state with a resume button, or the snooze button. */
function snoozePart(view: SubscriptionView, t: Messages): string {
  if (!view.subscribed) return '';
  const path = view.action === 'manage' ? view.selfPath : view.managePath;
  const until = view.snoozedUntil ?? null;
  const snoozed = until !== null && Date.parse(until) > (view.now ?? new Date()).getTime();
  if (snoozed)
    return (
      `<p>${withEmail(t.stateSnoozed, view.email, dateIn(view.language, until))}</p>` +
      form(path, 'unsnooze', t.buttonResume, true)
    );
  return form(path, 'snooze', t.buttonSnooze, true);
}

export function subscriptionPage(view: SubscriptionView): HttpResult {
  const t = messagesOf(view.language);
  const state = `<p>${withEmail(view.subscribed ? t.stateSubscribed : t.stateUnsubscribed, view.email)}</p>`;
  let title = view.subscribed ? t.titleSubscribed : t.titleUnsubscribed;
  let note = '';
  if (view.changed === 'unsubscribed') {
    title = t.titleJustUnsubscribed;
    note = `<p>${escapeHtml(t.noteChangedMind)}</p>`;
  } else if (view.changed === 'subscribed') {
    title = t.titleSubscribedAgain;
  } else if (view.changed === 'snoozed') {
    title = t.titleSnoozed;
  } else if (view.changed === 'resumed') {
    title = t.titleResumed;
  }
  let action = '';
  if (view.changed === 'snoozed' || view.changed === 'resumed') {
    action = snoozePart(view, t) + form(view.managePath, 'unsubscribe', t.buttonUnsubscribe, true);
  } else if (view.changed !== undefined) {
    // After a change, offer the opposite through the manage link (this link may allow only one way).
    action = view.subscribed
      ? form(view.managePath, 'unsubscribe', t.buttonUnsubscribe, true)
      : form(view.managePath, 'subscribe', t.buttonSubscribeAgain, true);
  } else if (view.action === 'unsubscribe') {
    title = view.subscribed ? t.titleUnsubscribe : title;
    action = view.subscribed ? form(view.selfPath, 'unsubscribe', t.buttonUnsubscribe) : '';
  } else if (view.action === 'subscribe') {
    title = view.subscribed ? title : t.titleSubscribe;
    action = view.subscribed ? '' : form(view.selfPath, 'subscribe', t.buttonSubscribe);
  } else {
    title = t.titleManage;
    // A subscribed contact may also pause its mail instead of leaving (`snoozedUntil`).
    action = view.subscribed
      ? form(view.selfPath, 'unsubscribe', t.buttonUnsubscribe) + snoozePart(view, t)
      : form(view.selfPath, 'subscribe', t.buttonSubscribe);
  }
  return page(200, view.language, title, `${state}${note}${action}`);
}

/** The catalogue's error texts an error page shows. */
export type PageError =
  | 'linkMalformed'
  | 'linkInvalid'
  | 'subscriptionGone'
  | 'actionMissing'
  | 'linkCannotSubscribe'
  | 'linkCannotUnsubscribe';

/** An error page: the link is malformed (400), unknown or forged (404), or cannot do that (400). */
export function errorPage(statusCode: 400 | 404, message: PageError, language: string): HttpResult {
  const t: Messages = messagesOf(language);
  return page(
    statusCode,
    language,
    statusCode === 404 ? t.titleNotFound : t.titleInvalid,
    `<p>${escapeHtml(t[message])}</p>`,
  );
}
