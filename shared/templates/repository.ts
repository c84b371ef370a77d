/**
 * Template items: one per template in the project's partition (`TEMPLATE#<id>`), so a project's
 * templates are one Query and another project's ids are simply not found. `version` guards
 * read-modify-write updates; it is not part of the API shape.
 */
import type { StoreDeps } from '../store/store';
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
  const item = await deps.store.get(keys.template(projectId, templateId));
  return item ? fromItem(item) : undefined;
}

/** Creates a template; false when the id is taken. */
export async function putNewTemplate(deps: StoreDeps, record: TemplateRecord): Promise<boolean> {
  return deps.store.writeIf({ put: toItem(record), if: 'attribute_not_exists(pk)' });
}

/** Replaces a template if it still has `expectedVersion`; false when it changed or is gone. */
export async function replaceTemplate(
  deps: StoreDeps,
  record: TemplateRecord,
  expectedVersion: number,
): Promise<boolean> {
  return deps.store.writeIf({
    put: toItem(record),
    if: 'attribute_exists(pk) AND version = :v',
    values: { ':v': expectedVersion },
  });
}

/** Deletes a template; false when there was none. */
export async function deleteTemplateItem(deps: StoreDeps, projectId: string, templateId: string) {
  const old = await deps.store.write({ delete: keys.template(projectId, templateId), returnOld: true });
  return old !== undefined;
}

/** Every template of the project, without bodies (one Query, paged to the end). */
export async function listTemplateSummaries(deps: StoreDeps, projectId: string): Promise<TemplateSummary[]> {
  const out: TemplateSummary[] = [];
  for await (const item of deps.store.queryAll({
    partition: keys.projectPartition(projectId),
    sort: { beginsWith: keys.templatePrefix },
    attributes: ['id', 'name', 'description', 'subject', 'type', 'createdAt', 'updatedAt'],
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
  for (const item of await deps.store.batchGet(ids.map((id) => keys.template(projectId, id)))) {
    const record = fromItem(item);
    found.set(record.id, record);
  }
  return ids.map((id) => found.get(id)).filter((r): r is TemplateRecord => r !== undefined);
}
