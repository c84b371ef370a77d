/**
 * Receiving one email (the `inbound.received` job): a message SES stored becomes an
 * `email.received` event on the contact who sent it.
 *
 * 1. **Which project.** Received mail carries no project; it is found from the recipients'
 *    domains: each recipient's domain, or its nearest parent, must be a verified sender domain of
 *    a project (`receivingProject`, shared/domains/repository.ts). With the recommended setup
 *    (`-c inboundDomain=inbound.acme.io`, a subdomain of the verified sender domain `acme.io`)
 *    every recipient resolves to the project holding `acme.io`. Sender domain names are claimed
 *    deployment-wide, so a domain never resolves to two projects; a message addressed to the
 *    domains of two projects is received by each.
 * 2. **Which contact.** The project's live contact whose email is the message's From address
 *    (lower case). The envelope sender is not used: it is the bounce address, often a mailing
 *    service's, and empty for bounces.
 * 3. **The event.** `email.received` on that contact, at SES's receipt time, with `messageId`
 *    (SES's), `from`, `to` (the recipients at that project's domains), `subject`, `text` (its first
 *    2,000 characters), `inReplyTo`, `attachments` (how many), `spamVerdict` and `virusVerdict`.
 *    Its id derives from SES's message id and the project, and its time is the receipt's, so a
 *    redelivered notification writes the same event again, which stores nothing.
 *
 * What is dropped, each with one log line and no retry (a retry would never find more): the
 * notification SES sends when the rule is created; a message whose virus verdict is FAIL; one
 * whose recipients no project's verified domain covers (both decided before the message is read:
 * no S3 request); a message whose object is gone (expired after 30 days, or deleted), that cannot
 * be parsed or that names no From address; one whose sender is no contact of the project. Failures
 * of the store or of S3 itself (throttling, a denied read) are thrown, and the message is retried.
 */
import { nameUuid } from '../campaigns/ids';
import { findContactsByEmail } from '../contacts/repository';
import { receivingProject } from '../domains/repository';
import { emit } from '../events/emit';
import type { EventRecord } from '../events/repository';
import type { Deps } from '../ports';
import { type InboundReceivedMessage, SES_SETUP_NOTIFICATION_ID } from './messages';
import { type InboundFacts, readInboundMessage } from './parse';

export const RECEIVED_EVENT = 'email.received';

export type ReceiveOutcome =
  | 'received'
  | 'setup-notification'
  | 'virus'
  | 'no-project'
  | 'missing-object'
  | 'unreadable'
  | 'no-sender'
  | 'no-contact';

type ReceiveDeps = Pick<Deps, 'store' | 'queue' | 'clock' | 'inboundMail'>;

function log(level: 'info' | 'warn', message: string, fields: Record<string, unknown>) {
  const line = JSON.stringify({ level, message, ...fields });
  if (level === 'info') console.info(line);
  else console.warn(line);
}

export async function receiveInboundMail(
  deps: ReceiveDeps,
  m: InboundReceivedMessage,
): Promise<ReceiveOutcome> {
  const about = { messageId: m.messageId, key: m.key };
  if (m.messageId === SES_SETUP_NOTIFICATION_ID) {
    log('info', 'Inbound mail: SES setup notification ignored', about);
    return 'setup-notification';
  }
  if (m.verdicts.virus?.toUpperCase() === 'FAIL') {
    log('warn', 'Inbound mail dropped: SES found a virus', about);
    return 'virus';
  }
  const projects = await projectsOf(deps, m.recipients);
  if (projects.size === 0) {
    log('info', 'Inbound mail dropped: no project has a verified domain of its recipients', {
      ...about,
      recipients: m.recipients,
    });
    return 'no-project';
  }
  const raw = await deps.inboundMail.get(m.key);
  if (!raw) {
    log('warn', 'Inbound mail dropped: the stored message is gone (expired or deleted)', about);
    return 'missing-object';
  }
  const facts = await readInboundMessage(raw);
  if ('unreadable' in facts) {
    log('warn', 'Inbound mail dropped: the message cannot be parsed', { ...about, why: facts.unreadable });
    return 'unreadable';
  }
  if (!facts.from) {
    log('info', 'Inbound mail dropped: the message names no From address', about);
    return 'no-sender';
  }
  let received = 0;
  for (const [projectId, to] of projects) {
    const contact = (await findContactsByEmail(deps, projectId, [facts.from])).get(facts.from);
    if (!contact) {
      log('info', 'Inbound mail dropped: the sender is not a contact of the project', {
        ...about,
        projectId,
      });
      continue;
    }
    // Replay: a redelivery finds the event stored and dispatches nothing again.
    await emit(
      deps,
      receivedEvent(m, facts, { projectId, contactId: contact.id, email: contact.email, to }),
      {
        replay: true,
      },
    );
    received++;
  }
  return received > 0 ? 'received' : 'no-contact';
}

/** The recipients of each project whose verified domain covers them, by project id. */
async function projectsOf(deps: ReceiveDeps, recipients: readonly string[]): Promise<Map<string, string[]>> {
  const byDomain = new Map<string, Promise<{ projectId: string } | undefined>>();
  const out = new Map<string, string[]>();
  for (const recipient of recipients) {
    const address = recipient.trim().toLowerCase();
    const domain = address.slice(address.lastIndexOf('@') + 1);
    if (!address.includes('@') || !domain) continue;
    if (!byDomain.has(domain)) byDomain.set(domain, receivingProject(deps, domain));
    const project = await byDomain.get(domain);
    if (!project) continue;
    const list = out.get(project.projectId) ?? [];
    if (!list.includes(address)) list.push(address);
    out.set(project.projectId, list);
  }
  return out;
}

/** The `email.received` event of a message on one project's contact. */
export function receivedEvent(
  m: InboundReceivedMessage,
  facts: InboundFacts,
  target: { projectId: string; contactId: string; email: string; to: readonly string[] },
): EventRecord {
  return {
    id: nameUuid(`sesame:inbound:${m.messageId}:${target.projectId}`),
    projectId: target.projectId,
    contactId: target.contactId,
    email: target.email,
    name: RECEIVED_EVENT,
    data: {
      messageId: m.messageId,
      from: facts.from,
      to: [...target.to],
      subject: facts.subject,
      text: facts.text,
      inReplyTo: facts.inReplyTo,
      attachments: facts.attachments,
      spamVerdict: m.verdicts.spam ?? null,
      virusVerdict: m.verdicts.virus ?? null,
    },
    // SES's time, as an ISO string the event indexes sort by.
    createdAt: new Date(m.receivedAt).toISOString(),
  };
}
