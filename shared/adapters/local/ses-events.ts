/**
 * SES event-publishing records for a message the mail sink accepted, so the local activity
 * pipeline sees what SES would publish to SNS. Recipients at the SES mailbox simulator behave as
 * on SES: `bounce@` bounces (Permanent/General), `suppressionlist@` bounces (Permanent/Suppressed),
 * `complaint@` is delivered then complained about, `success@` and `ooto@` are delivered; a
 * `+label` in the local part is allowed. Every other recipient is delivered.
 */
import { sesEventJobMessage } from '../../email-events/messages';
import { enqueue } from '../../jobs/registry';
import type { QueuePort } from '../../ports';
import { consoleLogger, type LocalLogger } from './log';
import type { MailSink, SinkMessage } from './mail-sink';

export const SIMULATOR_DOMAIN = 'simulator.amazonses.com';

export type SimulatorOutcome = 'delivery' | 'bounce' | 'suppressed' | 'complaint';

/** What SES does with a recipient: the simulator's scripted outcome, else delivery. */
export function simulatorOutcome(address: string): SimulatorOutcome {
  const at = address.lastIndexOf('@');
  if (at < 0 || address.slice(at + 1).toLowerCase() !== SIMULATOR_DOMAIN) return 'delivery';
  const local = address.slice(0, at).toLowerCase().split('+')[0];
  if (local === 'bounce') return 'bounce';
  if (local === 'suppressionlist') return 'suppressed';
  if (local === 'complaint') return 'complaint';
  return 'delivery';
}

export interface SesMailObject {
  readonly timestamp: string;
  readonly source: string;
  readonly sendingAccountId: string;
  readonly messageId: string;
  readonly destination: readonly string[];
  readonly headersTruncated: boolean;
  readonly headers: readonly { name: string; value: string }[];
  readonly commonHeaders: {
    readonly from: readonly string[];
    readonly to: readonly string[];
    readonly messageId: string;
    readonly subject: string | undefined;
  };
  readonly tags: Readonly<Record<string, string[]>>;
}

export type SesEvent =
  | { readonly eventType: 'Send'; readonly mail: SesMailObject; readonly send: Record<string, never> }
  | {
      readonly eventType: 'Delivery';
      readonly mail: SesMailObject;
      readonly delivery: {
        readonly timestamp: string;
        readonly processingTimeMillis: number;
        readonly recipients: readonly string[];
        readonly smtpResponse: string;
        readonly reportingMTA: string;
      };
    }
  | {
      readonly eventType: 'Bounce';
      readonly mail: SesMailObject;
      readonly bounce: {
        readonly bounceType: 'Permanent' | 'Transient' | 'Undetermined';
        readonly bounceSubType: string;
        readonly bouncedRecipients: readonly {
          emailAddress: string;
          action: 'failed';
          status: string;
          diagnosticCode: string;
        }[];
        readonly timestamp: string;
        readonly feedbackId: string;
        readonly reportingMTA: string;
      };
    }
  | {
      readonly eventType: 'Complaint';
      readonly mail: SesMailObject;
      readonly complaint: {
        readonly complainedRecipients: readonly { emailAddress: string }[];
        readonly timestamp: string;
        readonly feedbackId: string;
        readonly complaintFeedbackType: 'abuse';
        readonly arrivalDate: string;
      };
    }
  | {
      readonly eventType: 'Open';
      readonly mail: SesMailObject;
      readonly open: { readonly timestamp: string; readonly ipAddress: string; readonly userAgent: string };
    }
  | {
      readonly eventType: 'Click';
      readonly mail: SesMailObject;
      readonly click: {
        readonly timestamp: string;
        readonly ipAddress: string;
        readonly userAgent: string;
        readonly link: string;
        readonly linkTags: Readonly<Record<string, string[]>>;
      };
    };

/** The `mail` object SES puts in every event of `message`. */
function mailObject(message: SinkMessage): SesMailObject {
  return {
    timestamp: message.createdAt,
    source: message.from,
    sendingAccountId: '000000000000',
    messageId: message.id,
    destination: message.to,
    headersTruncated: false,
    headers: Object.entries(message.headers).map(([name, value]) => ({ name, value })),
    commonHeaders: {
      from: message.headers.from ? [message.headers.from] : [message.from],
      to: message.headers.to ? [message.headers.to] : [...message.to],
      messageId: message.id,
      subject: message.subject,
    },
    tags: Object.fromEntries(Object.entries(message.tags).map(([k, v]) => [k, [v]])),
  };
}

/** The events SES would publish for `message`, in order: Send, then one per outcome. */
export function sesEventsFor(message: SinkMessage, options: { at?: Date } = {}): SesEvent[] {
  const at = (options.at ?? new Date(message.createdAt)).toISOString();
  const mail = mailObject(message);
  const byOutcome = (wanted: SimulatorOutcome[]) =>
    message.to.filter((to) => wanted.includes(simulatorOutcome(to)));
  const feedbackId = `${message.id.replace(/-000000$/, '')}-feedback-000000`;
  const events: SesEvent[] = [{ eventType: 'Send', mail, send: {} }];

  const delivered = byOutcome(['delivery', 'complaint']);
  if (delivered.length > 0) {
    events.push({
      eventType: 'Delivery',
      mail,
      delivery: {
        timestamp: at,
        processingTimeMillis: 0,
        recipients: delivered,
        smtpResponse: '250 2.6.0 Message received',
        reportingMTA: 'local.sesame',
      },
    });
  }
  for (const [outcome, subType, status, diagnostic] of [
    ['bounce', 'General', '5.1.1', 'smtp; 550 5.1.1 user unknown'],
    ['suppressed', 'Suppressed', '5.1.1', 'Amazon SES has suppressed sending to this address'],
  ] as const) {
    const recipients = byOutcome([outcome]);
    if (recipients.length === 0) continue;
    events.push({
      eventType: 'Bounce',
      mail,
      bounce: {
        bounceType: 'Permanent',
        bounceSubType: subType,
        bouncedRecipients: recipients.map((emailAddress) => ({
          emailAddress,
          action: 'failed',
          status,
          diagnosticCode: diagnostic,
        })),
        timestamp: at,
        feedbackId,
        reportingMTA: 'dns; local.sesame',
      },
    });
  }
  const complained = byOutcome(['complaint']);
  if (complained.length > 0) {
    events.push({
      eventType: 'Complaint',
      mail,
      complaint: {
        complainedRecipients: complained.map((emailAddress) => ({ emailAddress })),
        timestamp: at,
        feedbackId,
        complaintFeedbackType: 'abuse',
        arrivalDate: at,
      },
    });
  }
  return events;
}

/** What a recipient did with a message, as SES reports it (its open pixel, a tracked link). */
export function engagementEvent(
  message: SinkMessage,
  what: { readonly open: true } | { readonly link: string },
  at: Date,
): SesEvent {
  const who = { timestamp: at.toISOString(), ipAddress: '127.0.0.1', userAgent: 'Sesame local runtime' };
  return 'link' in what
    ? { eventType: 'Click', mail: mailObject(message), click: { ...who, link: what.link, linkTags: {} } }
    : { eventType: 'Open', mail: mailObject(message), open: who };
}

/**
 * SES publishes an event a moment after the fact; the local runtime waits as long before its
 * events reach the jobs queue (a second, shortened by the runtime's test timings), so the sender
 * has recorded its own outcome by then, as it has on AWS.
 */
export const SES_EVENT_DELAY_S = 1;

/**
 * Hands SES-shaped events of a sink message to the jobs queue as `ses.event` jobs (the job the
 * topic's deliveries become on AWS) and keeps them beside the message for the mail page. All
 * are queued (each durably, in the queue's journal) before any is kept, so a message with an
 * event kept has had all its events queued (see `publishSinkEvents`).
 */
export async function publishSesEvents(
  sink: Pick<MailSink, 'recordEvent'>,
  queue: QueuePort,
  messageId: string,
  events: readonly SesEvent[],
): Promise<void> {
  for (const event of events) {
    await enqueue(
      { queue },
      sesEventJobMessage,
      { event: event as unknown as Record<string, unknown> },
      { delaySeconds: SES_EVENT_DELAY_S },
    );
  }
  for (const event of events) sink.recordEvent(messageId, event);
}

/**
 * Makes the sink publish, for every message it accepts, the events SES would.
 *
 * SES publishes a Send event for every message it accepts, and a campaign relies on that: a claim
 * with no Send event after the grace period never reached SES and is sent again
 * (shared/campaigns/settle.ts). The sink's acceptance (its index line) and the queueing of its
 * events are two writes, so a process killed between them would leave a message accepted with no
 * Send event; at start, every kept message with no event kept has its events published, and the
 * acceptance and its Send event are durable together (a Send event published twice is applied
 * once: its identity is its message's).
 */
export function publishSinkEvents(sink: MailSink, queue: QueuePort, logger?: LocalLogger): () => void {
  // The outcome (delivery, bounce, complaint) a second after the sink accepted the message, as
  // SES reports it after its own hand-over, so it never precedes the sender's `email.sent`.
  const publish = (message: SinkMessage) =>
    publishSesEvents(
      sink,
      queue,
      message.id,
      sesEventsFor(message, { at: new Date(Date.parse(message.createdAt) + SES_EVENT_DELAY_S * 1000) }),
    );
  const stop = sink.onSent(publish);
  void (async () => {
    for (const id of sink.messageIds()) {
      if (sink.eventsOf(id).length > 0) continue;
      const message = await sink.get(id);
      if (message) await publish(message);
    }
  })().catch((error: unknown) =>
    (logger ?? consoleLogger).error('[mail] publishing the events of accepted messages failed', error),
  );
  return stop;
}
