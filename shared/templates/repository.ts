/**
 * Template items: one per template in the project's partition (`TEMPLATE#<id>`), so a project's
 * templates are one Query and another project's ids are simply not found. `version` guards
 * read-modify-write updates; it is not part of the API shape.
 */
import { BatchGetCommand, DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Deps } from '../ports';
import { queryAll, sendConditional, sleep } from '../store/dynamo';
import { keys } from '../table';
import type { TemplateType } from './schemas';

export interface Template {
  readonly id: string;
  readonly projectId: string;
  readonly name: string;
  readonly description: string | null;
  readonly subject: string;
  readonly body: string;
  readonly from: string;
  readonly fromName: string | null;
  readonly replyTo: string | null;
  readonly type: TemplateType;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export interface TemplateRecord extends Template {
  readonly version: number;
}

/** What list filtering and sorting read, without the (possibly large) body. */
export type TemplateSummary = Pick<
  Template,
  'id' | 'name' | 'description' | 'subject' | 'type' | 'createdAt' | 'updatedAt'
>;

type StoreDeps = Pick<Deps, 'db' | 'tableName'>;

const FIELDS = [
  'id',
  'projectId',
  'name',
  'description',
  'subject',
  'body',
  'from',
  'fromName',
  'replyTo',
  'type',
  'createdAt',
  'updatedAt',
  'version',
] as const;

function toItem(record: TemplateRecord): Record<string, unknown> {
  return { ...keys.template(record.projectId, record.id), entity: 'template', ...record };
}

function fromItem(item: Record<string, unknown>): TemplateRecord {
  const out: Record<string, unknown> = {};
  for (const field of FIELDS) out[field] = item[field] ?? null;
  return out as unknown as TemplateRecord;
}

/** The API shape of a template (no internal fields). */
export function present(record: TemplateRecord): Template {
  const { version: _version, ...template } = record;
  return template;
}

export async function getTemplateRecord(
  deps: StoreDeps,
  projectId: string,
  templateId: string,
): Promise<TemplateRecord | undefined> {
  const out = await deps.db.send(
    new GetCommand({ TableName: deps.tableName, Key: keys.template(projectId, templateId) }),
  );
  return out.Item ? fromItem(out.Item) : undefined;
}

/** Creates a template; false when the id is taken. */
export async function putNewTemplate(deps: StoreDeps, record: TemplateRecord): Promise<boolean> {
  return sendConditional(() =>
    deps.db.send(
      new PutCommand({
        TableName: deps.tableName,
        Item: toItem(record),
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    ),
  );
}

/** Replaces a template if it still has `expectedVersion`; false when it changed or is gone. */
export async function replaceTemplate(
  deps: StoreDeps,
  record: TemplateRecord,
  expectedVersion: number,
): Promise<boolean> {
  return sendConditional(() =>
    deps.db.send(
      new PutCommand({
        TableName: deps.tableName,
        Item: toItem(record),
        ConditionExpression: 'attribute_exists(pk) AND version = :v',
        ExpressionAttributeValues: { ':v': expectedVersion },
      }),
    ),
  );
}

/** Deletes a template; false when there was none. */
export async function deleteTemplateItem(deps: StoreDeps, projectId: string, templateId: string) {
  const out = await deps.db.send(
    new DeleteCommand({
      TableName: deps.tableName,
      Key: keys.template(projectId, templateId),
      ReturnValues: 'ALL_OLD',
    }),
  );
  return out.Attributes !== undefined;
}

/** Every template of the project, without bodies (one Query, paged to the end). */
export async function listTemplateSummaries(deps: StoreDeps, projectId: string): Promise<TemplateSummary[]> {
  const out: TemplateSummary[] = [];
  for await (const item of queryAll(deps.db, {
    TableName: deps.tableName,
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': keys.projectPartition(projectId), ':prefix': keys.templatePrefix },
    ProjectionExpression: 'id, #name, description, subject, #type, createdAt, updatedAt',
    ExpressionAttributeNames: { '#name': 'name', '#type': 'type' },
  })) {
    out.push({
      id: String(item.id),
      name: String(item.name ?? ''),
      description: (item.description as string | null | undefined) ?? null,
      subject: String(item.subject ?? ''),
      type: item.type as TemplateType,
      createdAt: String(item.createdAt),
      updatedAt: String(item.updatedAt),
    });
  }
  return out;
}

/** Full records for up to 100 ids, in the order given; ids deleted meanwhile are left out. */
export async function batchGetTemplates(
  deps: StoreDeps,
  projectId: string,
  ids: readonly string[],
): Promise<TemplateRecord[]> {
  if (ids.length === 0) return [];
  if (ids.length > 100) throw new Error('batchGetTemplates reads at most 100 templates');
  const found = new Map<string, TemplateRecord>();
  let pending: Record<string, unknown>[] = ids.map((id) => keys.template(projectId, id));
  for (let attempt = 0; pending.length > 0; attempt++) {
    if (attempt > 0) await sleep(Math.min(1000, 25 * 2 ** attempt));
    if (attempt > 8) throw new Error('BatchGet kept returning unprocessed keys');
    const out = await deps.db.send(
      new BatchGetCommand({ RequestItems: { [deps.tableName]: { Keys: pending } } }),
    );
    for (const item of out.Responses?.[deps.tableName] ?? []) {
      const record = fromItem(item);
      found.set(record.id, record);
    }
    pending = (out.UnprocessedKeys?.[deps.tableName]?.Keys ?? []) as Record<string, unknown>[];
  }
  return ids.map((id) => found.get(id)).filter((r): r is TemplateRecord => r !== undefined);
}
