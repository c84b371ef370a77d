/**
 * Template use cases. Every write checks before storing
 * anything: subject and body must be valid Liquid (422 with Liquid's message, at save time
 * rather than at send time) and the sender domain must be registered and verified (403).
 */

import { definitionItems } from '../definitions/repository';
import { requireVerifiedSenderDomain } from '../domains/sender';
import { conflict, notFound } from '../errors';
import { type OffsetPage, pageOf } from '../offset-list';
import type { Deps } from '../ports';
import { sleep } from '../store/store';
import {
  batchGetTemplates,
  deleteTemplateItem,
  getTemplateRecord,
  listTemplateSummaries,
  present,
  putNewTemplate,
  replaceTemplate,
  type Template,
  type TemplateRecord,
} from './repository';
import {
  type CreateTemplateInput,
  type ListTemplatesQuery,
  MAX_NAME_CHARS,
  type PatchTemplateInput,
} from './schemas';

export type TemplateDeps = Pick<Deps, 'store' | 'clock' | 'ids'>;

const MAX_ATTEMPTS = 5;

/**
 * 422 when the subject or body does not parse or is over the parse budget; the parse gives the
 * event loop back as it goes, so a large body does not hold up other requests. The renderer
 * (liquidjs, html-to-text) is loaded on the first write, not at every cold start of the function.
 */
async function checkLiquid(input: { subject?: string; body?: string }) {
  const { compileAllAsync } = await import('../rendering');
  await compileAllAsync([
    ...(input.subject === undefined
      ? []
      : [{ field: 'subject', source: input.subject, kind: 'text' as const }]),
    ...(input.body === undefined ? [] : [{ field: 'body', source: input.body, kind: 'html' as const }]),
  ]);
}

export async function createTemplate(
  deps: TemplateDeps,
  projectId: string,
  input: CreateTemplateInput,
): Promise<Template> {
  await checkLiquid(input);
  await requireVerifiedSenderDomain(deps, projectId, input.from);
  const now = deps.clock.now().toISOString();
  const record: TemplateRecord = {
    id: deps.ids.uuid(),
    projectId,
    name: input.name,
    description: input.description ?? null,
    subject: input.subject,
    body: input.body,
    from: input.from,
    fromName: input.fromName ?? null,
    replyTo: input.replyTo ?? null,
    type: input.type,
    createdAt: now,
    updatedAt: now,
    version: 1,
  };
  if (!(await putNewTemplate(deps, record))) throw new Error('A new template id collided');
  return present(record);
}

/** A template of the project, or undefined (unknown, deleted, or another project's). */
export async function findTemplate(deps: TemplateDeps, projectId: string, templateId: string) {
  const record = await getTemplateRecord(deps, projectId, templateId);
  return record ? present(record) : undefined;
}

export async function getTemplate(
  deps: TemplateDeps,
  projectId: string,
  templateId: string,
): Promise<Template> {
  const template = await findTemplate(deps, projectId, templateId);
  if (!template) throw notFound('Template');
  return template;
}

export async function patchTemplate(
  deps: TemplateDeps,
  projectId: string,
  templateId: string,
  input: PatchTemplateInput,
): Promise<Template> {
  await checkLiquid({ subject: input.subject, body: input.body });
  let domainChecked = false;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    if (attempt > 0) await sleep(Math.min(200, 5 * 2 ** attempt) * Math.random());
    const current = await getTemplateRecord(deps, projectId, templateId);
    if (!current) throw notFound('Template');
    if (input.from !== undefined && !domainChecked) {
      await requireVerifiedSenderDomain(deps, projectId, input.from);
      domainChecked = true;
    }
    const record: TemplateRecord = {
      ...current,
      name: input.name ?? current.name,
      description: input.description === undefined ? current.description : input.description,
      subject: input.subject ?? current.subject,
      body: input.body ?? current.body,
      from: input.from ?? current.from,
      fromName: input.fromName === undefined ? current.fromName : input.fromName,
      replyTo: input.replyTo === undefined ? current.replyTo : input.replyTo,
      type: input.type ?? current.type,
      updatedAt: deps.clock.now().toISOString(),
      version: current.version + 1,
    };
    if (await replaceTemplate(deps, record, current.version)) return present(record);
  }
  throw conflict('TEMPLATE_BUSY', 'The template is being changed by another request; retry shortly', {
    templateId,
  });
}

export async function deleteTemplate(
  deps: TemplateDeps,
  projectId: string,
  templateId: string,
): Promise<void> {
  if (!(await deleteTemplateItem(deps, projectId, templateId))) throw notFound('Template');
}

/** Copies a template under a new id, named "<name> (copy)"; returns the new id. */
export async function duplicateTemplate(
  deps: TemplateDeps,
  projectId: string,
  templateId: string,
): Promise<Template> {
  const source = await getTemplateRecord(deps, projectId, templateId);
  if (!source) throw notFound('Template');
  const suffix = ' (copy)';
  const now = deps.clock.now().toISOString();
  const copy: TemplateRecord = {
    ...source,
    id: deps.ids.uuid(),
    name: `${source.name.slice(0, MAX_NAME_CHARS - suffix.length)}${suffix}`,
    createdAt: now,
    updatedAt: now,
    version: 1,
  };
  if (!(await putNewTemplate(deps, copy))) throw new Error('A new template id collided');
  return present(copy);
}

/**
 * The offset list: filter and sort the project's template summaries (bodies are not read
 * for this), then read the full templates of the requested page only.
 */
export async function listTemplates(
  deps: TemplateDeps,
  projectId: string,
  q: ListTemplatesQuery,
): Promise<OffsetPage<Template>> {
  const search = q.search ? q.search.toLowerCase() : undefined;
  const matches = (await listTemplateSummaries(deps, projectId)).filter(
    (t) =>
      (q.type === undefined || t.type === q.type) &&
      (search === undefined ||
        [t.name, t.description ?? '', t.subject].some((s) => s.toLowerCase().includes(search))),
  );
  const { ids, shape } = pageOf(matches, q);
  const records = await batchGetTemplates(deps, projectId, ids);
  return { data: records.map(present), ...shape };
}

export interface TemplateUsage {
  readonly templateId: string;
  readonly campaigns: { id: string; name: string }[];
  readonly workflows: { id: string; name: string; steps: { id: string; type: string | null }[] }[];
}

/**
 * Campaigns and workflow steps that reference the template (`templateId` anywhere in a campaign;
 * a SEND_EMAIL step's `config.templateId` or a step's own `templateId`). Reads the project's
 * campaign and workflow items, whether steps are kept inside the workflow item or as items of
 * their own under `WORKFLOW#<id>#...`.
 */
export async function templateUsage(
  deps: TemplateDeps,
  projectId: string,
  templateId: string,
): Promise<TemplateUsage> {
  if (!(await getTemplateRecord(deps, projectId, templateId))) throw notFound('Template');
  const campaigns = new Map<string, { id: string; name: string; uses: boolean }>();
  const workflows = new Map<string, { id: string; name: string; steps: Map<string, string | null> }>();
  for (const kind of ['campaign', 'workflow'] as const) {
    for await (const { id: ownerId, path: rest, item } of definitionItems(deps, projectId, kind)) {
      const isMain = rest.length === 0;
      if (kind === 'campaign') {
        const entry = campaigns.get(ownerId) ?? { id: ownerId, name: '', uses: false };
        if (isMain) entry.name = String(item.name ?? '');
        if (referencingObjects(item, templateId).length > 0) entry.uses = true;
        campaigns.set(ownerId, entry);
      } else {
        const entry = workflows.get(ownerId) ?? { id: ownerId, name: '', steps: new Map() };
        if (isMain) entry.name = String(item.name ?? '');
        for (const ref of referencingObjects(item, templateId)) {
          const stepId = typeof ref.id === 'string' && ref.id !== ownerId ? ref.id : (rest.at(-1) ?? ownerId);
          entry.steps.set(stepId, typeof ref.type === 'string' ? ref.type : null);
        }
        workflows.set(ownerId, entry);
      }
    }
  }
  return {
    templateId,
    campaigns: [...campaigns.values()].filter((c) => c.uses).map(({ id, name }) => ({ id, name })),
    workflows: [...workflows.values()]
      .filter((w) => w.steps.size > 0)
      .map((w) => ({ id: w.id, name: w.name, steps: [...w.steps].map(([id, type]) => ({ id, type })) })),
  };
}

/** Objects in `node` (itself included) whose `templateId` or `config.templateId` is `templateId`. */
function referencingObjects(node: unknown, templateId: string): Record<string, unknown>[] {
  if (Array.isArray(node)) return node.flatMap((n) => referencingObjects(n, templateId));
  if (typeof node !== 'object' || node === null) return [];
  const obj = node as Record<string, unknown>;
  const config = obj.config as Record<string, unknown> | undefined;
  if (obj.templateId === templateId || (typeof config === 'object' && config?.templateId === templateId)) {
    return [obj];
  }
  return Object.values(obj).flatMap((v) => referencingObjects(v, templateId));
}
