/** A campaign's content as the sending code takes it: what every recipient's message shares. */
import { type CompiledTemplate, compileAll } from '../rendering';
import type { EmailContent } from '../sending/compose';
import type { LinkSettings } from '../subscriptions/links';
import type { CampaignRecord } from './repository';

/**
 * The campaign's subject and body compiled (they were checked when saved), its sender, and the
 * link settings its messages' subscription links are signed with. `subjectPrefix` is put before
 * the subject as literal text (a test send's `[Test] `).
 */
export function campaignContent(
  campaign: Pick<CampaignRecord, 'subject' | 'body' | 'from' | 'fromName' | 'replyTo' | 'type'>,
  links: LinkSettings,
  subjectPrefix = '',
): EmailContent {
  const [subject, body] = compileAll([
    { field: 'subject', source: `${subjectPrefix}${campaign.subject}`, kind: 'text' },
    { field: 'body', source: campaign.body, kind: 'html' },
  ]) as [CompiledTemplate, CompiledTemplate];
  return {
    templateId: null,
    type: campaign.type,
    from: { email: campaign.from, ...(campaign.fromName ? { name: campaign.fromName } : {}) },
    replyTo: campaign.replyTo,
    subject,
    body,
    // The same rule as /v1/send: no footer when the body links to the unsubscribe page itself.
    bodyHasUnsubscribeLink: /\bunsubscribeUrl\b/.test(campaign.body),
    headers: {},
    attachments: [],
    links,
  };
}
