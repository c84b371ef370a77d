/**
 * What happened to a kept message, for the inbox's Events tab: the SES events the local runtime
 * published for it (the mail sink keeps them), and what Sesame made of them: the email record
 * (status, first-time fields, open and click counts) and the `email.*` events recorded on the
 * email's contact (shared/email-events). Every send tags its message with `projectId` and
 * `emailId`, which name the record; the record names the contact. The contact's events are read
 * newest first, a page at a time, down to the email's creation (none of its events is older), so
 * what is read is the contact's events since the email, never the table.
 */
import type { SinkEvent, SinkMessage } from '../../adapters/local/mail-sink';
import { listContactEventsPage } from '../../events/repository';
import { getEmailRecord } from '../../sending/repository';
import type { StoreDeps } from '../../store/store';

/** One SES event, as the Events tab lists it. */
export interface SesEventLine {
  readonly type: string;
  readonly timestamp: string | null;
  /** A click's link, a bounce's type and subtype, a complaint's feedback type. */
  readonly detail: string | null;
}

export interface RecordedEvent {
  readonly id: string;
  readonly name: string;
  readonly createdAt: string;
  readonly data: Readonly<Record<string, unknown>>;
}

export interface MessageActivity {
  readonly ses: readonly SesEventLine[];
  /** Why there is no record to show (`untagged`: not one of Sesame's sends, e.g. a system mail). */
  readonly email:
    | {
        readonly id: string;
        readonly projectId: string;
        readonly contactId: string;
        readonly status: string;
        readonly fields: Readonly<Record<string, unknown>>;
      }
    | { readonly missing: 'untagged' | 'no-record' | 'no-store' };
  /** The record's `email.*` events, oldest first. */
  readonly events: readonly RecordedEvent[];
  /** Set when more of the contact's events than `MAX_PAGES` pages came after the email. */
  readonly truncated?: boolean;
}

const PAGE = 100;
const MAX_PAGES = 20;

/** The record fields the tab shows beside the status, when set. */
const FIELDS = [
  'sentAt',
  'deliveredAt',
  'openedAt',
  'clickedAt',
  'bouncedAt',
  'complainedAt',
  'opens',
  'clicks',
  'reason',
  'error',
  'campaignId',
  'templateId',
] as const;

export function sesLine(e: SinkEvent): SesEventLine {
  const ownName = e.eventType.charAt(0).toLowerCase() + e.eventType.slice(1);
  const own = e[ownName] as Record<string, unknown> | undefined;
  const mail = e.mail as { timestamp?: unknown } | undefined;
  const timestamp =
    typeof own?.timestamp === 'string'
      ? own.timestamp
      : typeof mail?.timestamp === 'string'
        ? mail.timestamp
        : null;
  const detail =
    typeof own?.link === 'string'
      ? own.link
      : typeof own?.bounceType === 'string'
        ? `${own.bounceType}/${String(own.bounceSubType ?? '')}`
        : typeof own?.complaintFeedbackType === 'string'
          ? own.complaintFeedbackType
          : null;
  return { type: e.eventType, timestamp, detail };
}

export async function messageActivity(
  message: SinkMessage,
  sesEvents: readonly SinkEvent[],
  deps: StoreDeps | undefined,
): Promise<MessageActivity> {
  const ses = sesEvents.map(sesLine);
  const { projectId, emailId } = message.tags;
  if (!projectId || !emailId) return { ses, email: { missing: 'untagged' }, events: [] };
  if (!deps) return { ses, email: { missing: 'no-store' }, events: [] };
  const record = await getEmailRecord(deps, projectId, emailId, { consistent: true });
  if (!record) return { ses, email: { missing: 'no-record' }, events: [] };
  const all = record as unknown as Readonly<Record<string, unknown>>;
  const fields: Record<string, unknown> = {};
  for (const name of FIELDS) if (all[name] !== undefined && all[name] !== null) fields[name] = all[name];

  const events: RecordedEvent[] = [];
  let cursor: string | undefined;
  let truncated = false;
  for (let page = 0; ; page++) {
    if (page === MAX_PAGES) {
      truncated = true;
      break;
    }
    const found = await listContactEventsPage(deps, projectId, record.contactId, { limit: PAGE, cursor });
    for (const e of found.events) {
      if (e.data.emailId === emailId)
        events.push({ id: e.id, name: e.name, createdAt: e.createdAt, data: e.data });
    }
    const oldest = found.events.at(-1);
    if (!found.hasMore || !oldest || oldest.createdAt < record.createdAt) break;
    cursor = found.cursor;
  }
  events.reverse();
  return {
    ses,
    email: { id: record.id, projectId, contactId: record.contactId, status: record.status, fields },
    events,
    ...(truncated ? { truncated } : {}),
  };
}
