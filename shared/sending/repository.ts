/**
 * Email records: one per recipient of a send, addressed by the id `/v1/send` returns (the
 * `emailId` of lifecycle events), and listed newest first per project through gsi1. The SES
 * message carries the project and email ids as tags, so delivery events find their record by
 * key.
 */
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Deps } from '../ports';
import { keys } from '../table';
import type { TemplateType } from '../templates/schemas';

/**
 * SENDING while the provider is called (a record left in SENDING means the process stopped
 * there), then SENT, FAILED, or SKIPPED when the contact's subscription excluded it.
 */
export type EmailStatus = 'SENDING' | 'SENT' | 'FAILED' | 'SKIPPED';

export interface EmailRecord {
  readonly id: string;
  readonly projectId: string;
  readonly contactId: string;
  readonly to: string;
  readonly from: string;
  readonly fromName: string | null;
  readonly replyTo: string | null;
  readonly subject: string;
  readonly templateId: string | null;
  readonly type: TemplateType;
  readonly status: EmailStatus;
  readonly messageId: string | null;
  /** Why it was skipped or failed (`unsubscribed`, `RENDER_ERROR`, a provider reason...). */
  readonly reason: string | null;
  readonly error: string | null;
  readonly createdAt: string;
  readonly sentAt: string | null;
  readonly updatedAt: string;
}

type StoreDeps = Pick<Deps, 'db' | 'tableName'>;

export async function putEmailRecord(deps: StoreDeps, record: EmailRecord): Promise<void> {
  await deps.db.send(
    new PutCommand({
      TableName: deps.tableName,
      Item: {
        ...keys.emailMessage(record.projectId, record.id),
        gsi1pk: keys.emailsIndex(record.projectId),
        gsi1sk: `${record.createdAt}#${record.id}`,
        entity: 'email',
        ...record,
      },
    }),
  );
}

export async function updateEmailRecord(
  deps: StoreDeps,
  projectId: string,
  emailId: string,
  change: Partial<Pick<EmailRecord, 'status' | 'messageId' | 'reason' | 'error' | 'sentAt' | 'updatedAt'>>,
): Promise<void> {
  const entries = Object.entries(change).filter(([, v]) => v !== undefined);
  if (entries.length === 0) return;
  await deps.db.send(
    new UpdateCommand({
      TableName: deps.tableName,
      Key: keys.emailMessage(projectId, emailId),
      UpdateExpression: `SET ${entries.map((_, i) => `#f${i} = :v${i}`).join(', ')}`,
      ExpressionAttributeNames: Object.fromEntries(entries.map(([k], i) => [`#f${i}`, k])),
      ExpressionAttributeValues: Object.fromEntries(entries.map(([, v], i) => [`:v${i}`, v])),
      ConditionExpression: 'attribute_exists(pk)',
    }),
  );
}

export async function getEmailRecord(
  deps: StoreDeps,
  projectId: string,
  emailId: string,
): Promise<EmailRecord | undefined> {
  const out = await deps.db.send(
    new GetCommand({ TableName: deps.tableName, Key: keys.emailMessage(projectId, emailId) }),
  );
  if (!out.Item) return undefined;
  const { pk: _pk, sk: _sk, gsi1pk: _g1, gsi1sk: _g2, entity: _e, ...record } = out.Item;
  return record as EmailRecord;
}
