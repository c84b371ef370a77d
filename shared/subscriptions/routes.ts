/**
 * Open routes behind the signed links in emails. GET only shows the state and a form (link
 * scanners and prefetchers follow GETs, so a GET never changes anything); POST changes it,
 * including RFC 8058 one-click unsubscribe (`List-Unsubscribe=One-Click` in the body). A change
 * goes through the contacts service, which emits `contact.subscribed` / `contact.unsubscribed`.
 * A malformed, forged or foreign token changes nothing.
 */
import type { ContactRecord } from '../contacts/repository';
import { findContact, patchContact, type SubscriptionOrigin } from '../contacts/service';
import { AppError } from '../errors';
import type { HttpResult } from '../http/response';
import type { ApiRequest, OpenRouteImpl } from '../http/stack';
import { languageOf, languageOfAcceptLanguage } from '../i18n/locale';
import type { Deps } from '../ports';
import { getEmailRecord, markUnsubscribeCredited } from '../sending/repository';
import {
  type LinkAction,
  type LinkClaims,
  linkSettings,
  looksLikeToken,
  signToken,
  verifyToken,
} from './links';
import { errorPage, type PageAction, subscriptionPage } from './pages';

const PATH = '/v1/subscription/{token}';
const pathOf = (token: string) => `/v1/subscription/${token}`;

/** Which changes a link may make: its own action; the manage link both, and snoozing. */
const ALLOWED: Record<LinkAction, readonly PageAction[]> = {
  unsubscribe: ['unsubscribe'],
  subscribe: ['subscribe'],
  manage: ['subscribe', 'unsubscribe', 'snooze', 'unsnooze'],
};

/** How long the manage page's snooze pauses a contact's marketing mail. */
export const SNOOZE_DAYS = 30;

export function subscriptionRoutes(deps: Deps): OpenRouteImpl[] {
  const secret = async () => (await linkSettings(deps.config)).secret;

  /** The claims and live contact of a token, or the error page to answer. */
  async function resolve(
    req: ApiRequest,
  ): Promise<
    { error: HttpResult } | { token: string; claims: LinkClaims; contact: ContactRecord; language: string }
  > {
    // Before the contact is known, the browser's language; then the contact's own.
    const browser = languageOfAcceptLanguage(req.headers['accept-language']);
    const token = req.params.token ?? '';
    if (!looksLikeToken(token)) return { error: errorPage(400, 'linkMalformed', browser) };
    const claims = verifyToken(await secret(), token);
    if (!claims) return { error: errorPage(404, 'linkInvalid', browser) };
    const contact = await findContact(deps, claims.projectId, claims.contactId);
    if (!contact) return { error: errorPage(404, 'subscriptionGone', browser) };
    const language = contact.data.locale === undefined ? browser : languageOf(contact.data.locale);
    return { token, claims, contact, language };
  }

  const view = async (token: string, claims: LinkClaims) => ({
    action: claims.action,
    selfPath: pathOf(token),
    managePath: pathOf(signToken(await secret(), { ...claims, action: 'manage' })),
  });

  return [
    {
      method: 'GET',
      path: PATH,
      auth: 'none',
      responses: { 200: null },
      handler: async (req: ApiRequest) => {
        const found = await resolve(req);
        if ('error' in found) return found.error;
        const { token, claims, contact, language } = found;
        return subscriptionPage({
          email: contact.email,
          subscribed: contact.subscribed,
          snoozedUntil: contact.snoozedUntil,
          now: deps.clock.now(),
          language,
          ...(await view(token, claims)),
        });
      },
    },
    {
      method: 'POST',
      path: PATH,
      auth: 'none',
      responses: { 200: null },
      rawBody: {
        contentType: 'application/x-www-form-urlencoded',
        description:
          '`action=subscribe|unsubscribe` (a link of that action, the manage link both), `action=snooze|unsnooze` (the manage link: pauses marketing mail for 30 days through `snoozedUntil`, or resumes it), or `List-Unsubscribe=One-Click`',
      },
      handler: async (req: ApiRequest) => {
        const found = await resolve(req);
        if ('error' in found) return found.error;
        const { token, claims, contact, language } = found;
        const fields = readForm(req);
        const oneClick = fields.get('List-Unsubscribe') === 'One-Click';
        const requested = oneClick ? 'unsubscribe' : fields.get('action');
        if (
          requested !== 'subscribe' &&
          requested !== 'unsubscribe' &&
          requested !== 'snooze' &&
          requested !== 'unsnooze'
        ) {
          return errorPage(400, 'actionMissing', language);
        }
        if (!ALLOWED[claims.action].includes(requested)) {
          if (requested === 'snooze' || requested === 'unsnooze')
            return errorPage(400, 'actionMissing', language);
          return errorPage(
            400,
            requested === 'subscribe' ? 'linkCannotSubscribe' : 'linkCannotUnsubscribe',
            language,
          );
        }
        if (requested === 'snooze' || requested === 'unsnooze') {
          const now = deps.clock.now();
          const snoozedUntil =
            requested === 'snooze' ? new Date(now.getTime() + SNOOZE_DAYS * 86_400_000).toISOString() : null;
          try {
            await patchContact(deps, claims.projectId, claims.contactId, {
              snoozedUntil,
              source: 'subscription_page',
            });
          } catch (error) {
            if (error instanceof AppError && error.statusCode === 404) {
              return errorPage(404, 'subscriptionGone', language);
            }
            throw error;
          }
          return subscriptionPage({
            email: contact.email,
            subscribed: contact.subscribed,
            snoozedUntil,
            now,
            changed: requested === 'snooze' ? 'snoozed' : 'resumed',
            language,
            ...(await view(token, claims)),
          });
        }
        const subscribed = requested === 'subscribe';
        let changed: 'subscribed' | 'unsubscribed' | 'unchanged' = 'unchanged';
        if (contact.subscribed !== subscribed) {
          const origin = await originOf(deps, claims);
          try {
            await patchContact(deps, claims.projectId, claims.contactId, {
              subscribed,
              source: oneClick ? 'one_click_unsubscribe' : 'subscription_page',
              ...(origin ? { origin } : {}),
            });
            if (!subscribed && origin?.credit)
              await markUnsubscribeCredited(deps, claims.projectId, origin.emailId);
          } catch (error) {
            if (error instanceof AppError && error.statusCode === 404) {
              return errorPage(404, 'subscriptionGone', language);
            }
            throw error;
          }
          changed = subscribed ? 'subscribed' : 'unsubscribed';
        }
        return subscriptionPage({
          email: contact.email,
          subscribed,
          changed,
          language,
          ...(await view(token, claims)),
        });
      },
    },
  ];
}

/**
 * The email a link names, if it is one of the contact's: its campaign, and whether an unsubscribe
 * through it counts for that campaign (not when one through the same email has counted already,
 * a contact that subscribed again and unsubscribed again from the same message).
 */
async function originOf(deps: Deps, claims: LinkClaims): Promise<SubscriptionOrigin | undefined> {
  if (!claims.emailId) return undefined;
  const record = await getEmailRecord(deps, claims.projectId, claims.emailId);
  if (!record || record.contactId !== claims.contactId) return undefined;
  return {
    emailId: record.id,
    ...(record.campaignId
      ? { campaignId: record.campaignId, credit: record.unsubscribeCreditedAt === undefined }
      : {}),
  };
}

/**
 * Form fields of a POST: urlencoded (browsers, most one-click senders), multipart/form-data
 * (RFC 8058 allows it) or a JSON object.
 */
export function readForm(req: ApiRequest): Map<string, string> {
  const type = (req.headers['content-type'] ?? '').toLowerCase();
  const fields = new Map<string, string>();
  if (typeof req.body === 'object' && req.body !== null && !Array.isArray(req.body)) {
    for (const [k, v] of Object.entries(req.body)) if (typeof v === 'string') fields.set(k, v);
    return fields;
  }
  const raw = req.rawBody?.toString('utf8') ?? '';
  if (type.startsWith('multipart/form-data')) {
    const boundary = /boundary="?([^";]+)"?/i.exec(req.headers['content-type'] ?? '')?.[1];
    if (!boundary) return fields;
    for (const part of raw.split(`--${boundary}`)) {
      const split = part.indexOf('\r\n\r\n');
      if (split < 0) continue;
      const name = /name="([^"]*)"/i.exec(part.slice(0, split))?.[1];
      if (name) fields.set(name, part.slice(split + 4).replace(/\r\n$/, ''));
    }
    return fields;
  }
  for (const [k, v] of new URLSearchParams(raw)) fields.set(k, v);
  return fields;
}
