/**
 * Project-wide custom fields: the list with inferred types and coverage, distinct values, where a
 * field is used, and deleting a field from every contact.
 *
 * Coverage and values come from the project's contact counters (stats.ts), kept as contacts
 * change: the field list is its type records and one read of the stats item, a field's values one
 * read of its value counter, whatever the project's size. Value counters track at most
 * `TRACKED_VALUES` values per field (contribution.ts): for a field with more, `values` are the
 * most frequent of those tracked and `count` is how many are tracked.
 */
import type * as z from 'zod/mini';
import { DEFINITION_KINDS, type DefinitionKind, definitionItems } from '../definitions/repository';
import { badRequest, notFound, validationError } from '../errors';
import { type ChunkOptions, chunkedJob, cursorInMessage, type MessageCursor } from '../jobs/chunked';
import { enqueue } from '../jobs/registry';
import type { Deps } from '../ports';
import type { StoreDeps } from '../store/store';
import { StatsDelta, sortCounts, valueOfKey } from './contribution';
import { type ContactData, dataPathIssues, type FieldType, getPath, removePath } from './data';
import { forgetFieldTypes } from './field-types';
import { requestRecount, stripFieldJobMessage } from './messages';
import {
  type ContactRecord,
  deleteFieldType,
  getContactRecord,
  listContactPage,
  listFieldTypes,
  replaceContact,
} from './repository';
import { applyStatsDelta, readContactStats, readFieldValueCounts } from './stats';

type FieldDeps = StoreDeps & Pick<Deps, 'clock' | 'queue' | 'ids'>;

export const STANDARD_FIELDS: Readonly<Record<string, FieldType>> = {
  email: 'string',
  subscribed: 'boolean',
  createdAt: 'date',
  updatedAt: 'date',
};

export interface FieldDescriptor {
  readonly field: string;
  readonly type: FieldType;
  readonly isCustom: boolean;
  readonly coverage: number;
}

/** `data.plan` or `plan` -> custom path `plan`; standard names stay standard. */
export function parseFieldName(raw: string): { standard: string } | { custom: string } {
  const name = raw.trim();
  if (Object.hasOwn(STANDARD_FIELDS, name)) return { standard: name };
  const path = name.startsWith('data.') ? name.slice(5) : name;
  if (!path || path.split('.').some((p) => p.length === 0)) throw badRequest(`Invalid field name: ${raw}`);
  // __proto__, constructor and prototype are never data keys (422 invalid_key, as in `data`).
  const issues = dataPathIssues(path, 'field', name);
  if (issues.length > 0) throw validationError(issues);
  return { custom: path };
}

/** Standard and custom fields, with coverage from the counters: the type records and one read. */
export async function listFields(deps: FieldDeps, projectId: string): Promise<FieldDescriptor[]> {
  const [types, stats] = await Promise.all([
    listFieldTypes(deps, projectId),
    readContactStats(deps, projectId),
  ]);
  const { total, coverage: counts } = stats;
  const ratio = (n: number) => (total === 0 ? 0 : Math.round((n / total) * 10_000) / 10_000);
  const standard = Object.entries(STANDARD_FIELDS).map(([field, type]) => ({
    field,
    type,
    isCustom: false,
    coverage: total === 0 ? 0 : 1,
  }));
  const custom = types
    .sort((a, b) => a.path.localeCompare(b.path))
    .map((t) => ({
      field: `data.${t.path}`,
      type: t.type,
      isCustom: true,
      coverage: ratio(counts.get(t.path) ?? 0),
    }));
  return [...standard, ...custom];
}

async function requireCustomField(deps: FieldDeps, projectId: string, path: string) {
  const types = await listFieldTypes(deps, projectId);
  const match = types.filter((t) => t.path === path || t.path.startsWith(`${path}.`));
  if (match.length === 0) throw notFound(`Field data.${path}`);
  return match;
}

export interface FieldValues {
  readonly field: string;
  readonly values: unknown[];
  readonly count: number;
  readonly limit: number;
}

/**
 * Distinct values of a field, most frequent first (equal counts in the order of their JSON text).
 * A custom field: its value counter (leaf paths only: an object value is not counted). `subscribed`:
 * the stats item. `email`, `createdAt` and `updatedAt`, whose values are (nearly) all distinct: the
 * oldest `limit` contacts' values, and `count` the number of contacts.
 */
export async function fieldValues(
  deps: FieldDeps,
  projectId: string,
  raw: string,
  limit: number,
): Promise<FieldValues> {
  const name = parseFieldName(raw);
  if ('custom' in name) {
    await requireCustomField(deps, projectId, name.custom);
    const { counts } = await readFieldValueCounts(deps, projectId, name.custom);
    const sorted = sortCounts(counts);
    const values = sorted.slice(0, limit).map(([key]) => valueOfKey(key));
    return { field: `data.${name.custom}`, values, count: sorted.length, limit };
  }
  const field = name.standard;
  if (field === 'subscribed') {
    const stats = await readContactStats(deps, projectId);
    const sorted = sortCounts([
      ['true', stats.subscribed],
      ['false', stats.total - stats.subscribed],
    ]);
    return {
      field,
      values: sorted.slice(0, limit).map(([key]) => valueOfKey(key)),
      count: sorted.length,
      limit,
    };
  }
  const [stats, page] = await Promise.all([
    readContactStats(deps, projectId),
    listContactPage(deps, projectId, { order: 'createdAt', dir: 'asc', limit }),
  ]);
  const values = [...new Set(page.records.map((c) => (c as unknown as Record<string, unknown>)[field]))];
  return { field, values, count: Math.max(stats.total, values.length), limit };
}

export interface FieldUsage {
  readonly field: string;
  readonly segments: { id: string; name: string }[];
  readonly campaigns: { id: string; name: string }[];
  readonly workflows: { id: string; name: string }[];
}

/** Segments, campaigns and workflows whose definitions reference the field. */
export async function fieldUsage(deps: FieldDeps, projectId: string, raw: string): Promise<FieldUsage> {
  const name = parseFieldName(raw);
  const field = 'custom' in name ? `data.${name.custom}` : name.standard;
  if ('custom' in name) await requireCustomField(deps, projectId, name.custom);
  const usage: FieldUsage = { field, segments: [], campaigns: [], workflows: [] };
  const lists: Record<DefinitionKind, FieldUsage['segments']> = {
    segment: usage.segments,
    campaign: usage.campaigns,
    workflow: usage.workflows,
  };
  for (const kind of DEFINITION_KINDS) {
    for await (const { item } of definitionItems(deps, projectId, kind)) {
      if (references(item, field)) lists[kind].push({ id: String(item.id), name: String(item.name ?? '') });
    }
  }
  return usage;
}

/** True when a definition holds a filter on the field (or below it), or writes it (UPDATE_CONTACT). */
function references(node: unknown, field: string): boolean {
  if (Array.isArray(node)) return node.some((n) => references(n, field));
  if (typeof node !== 'object' || node === null) return false;
  const obj = node as Record<string, unknown>;
  if (typeof obj.field === 'string' && (obj.field === field || obj.field.startsWith(`${field}.`)))
    return true;
  if (obj.type === 'UPDATE_CONTACT' && field.startsWith('data.')) {
    const data = (obj.config as { data?: ContactData } | undefined)?.data;
    if (data && getPath(data, field.slice(5)) !== undefined) return true;
  }
  return Object.values(obj).some((v) => references(v, field));
}

/**
 * Deletes a custom field: its type record goes at once (so the next value infers a type anew) and
 * the jobs queue strips the value from every contact.
 */
export async function deleteField(
  deps: FieldDeps,
  projectId: string,
  raw: string,
): Promise<{ field: string; deleted: true }> {
  const name = parseFieldName(raw);
  if ('standard' in name) throw badRequest(`${name.standard} is a standard field and cannot be deleted`);
  const types = await requireCustomField(deps, projectId, name.custom);
  // Queue first: if we crash after it, the strip still runs; the type records are removed below.
  await enqueue(deps, stripFieldJobMessage, { projectId, path: name.custom });
  for (const t of types) await deleteFieldType(deps, projectId, t.path);
  forgetFieldTypes(deps, projectId, name.custom);
  return { field: `data.${name.custom}`, deleted: true };
}

type StripMessage = z.infer<typeof stripFieldJobMessage.schema>;

/**
 * Maintenance job: removes a data path from every contact that has it, as a chunked job
 * (shared/jobs/chunked.ts): a page of the project's contacts a chunk (`chunkSize`, 100 by
 * default), oldest first, the position carried by the continuation message. Idempotent: a
 * contact stripped already is left as it is. The counters lose the chunk's stripped values in one
 * update per counter item; the last chunk queues a recount (recount.ts), which sets them exactly
 * whatever a chunk that ran twice after a crash did not count.
 */
export function stripChunks(options: ChunkOptions = {}) {
  return chunkedJob(stripFieldJobMessage, {
    budget: options,
    ...cursorInMessage<StripMessage, z.input<typeof stripFieldJobMessage.schema>>(),
    async process(deps: FieldDeps, { cursor }: MessageCursor, m: StripMessage) {
      const page = await listContactPage(deps, m.projectId, {
        order: 'createdAt',
        dir: 'asc',
        limit: options.chunkSize ?? 100,
        cursor,
      });
      const stripped = new StatsDelta();
      for (const contact of page.records) await stripContact(deps, m.projectId, contact, m.path, stripped);
      if (!stripped.isEmpty) await applyStatsDelta(deps, m.projectId, stripped);
      if (!page.hasMore) await requestRecount(deps, m.projectId);
      return { next: { cursor: page.cursor || undefined }, items: page.records.length, done: !page.hasMore };
    },
  });
}

/**
 * Removes `path` from one contact's data, re-reading it when a concurrent write came first; what
 * the contact no longer counts for goes into `stripped`.
 */
async function stripContact(
  deps: FieldDeps,
  projectId: string,
  contact: ContactRecord,
  path: string,
  stripped: StatsDelta,
) {
  let current = contact;
  for (let attempt = 0; attempt < 8; attempt++) {
    const data = structuredClone(current.data) as ContactData;
    if (!removePath(data, path)) return;
    const next = {
      ...current,
      data,
      version: current.version + 1,
      updatedAt: deps.clock.now().toISOString(),
    };
    if (await replaceContact(deps, projectId, next, current.version)) {
      // The contact service loads here, in the strip job, not with the field listing's routes.
      const { countChange } = await import('./service');
      await countChange(deps, projectId, current, next, stripped);
      return;
    }
    const fresh = await getContactRecord(deps, projectId, current.id);
    if (!fresh || fresh.deletedAt) return;
    current = fresh;
  }
}
