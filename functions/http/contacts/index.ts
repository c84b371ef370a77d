/** Contacts route group: parses and validates input, calls one use case, maps the result. */

import { getBulkJob, presentBulkJob } from '../../../shared/bulk/repository';
import { bulkRequestSchema } from '../../../shared/bulk/schemas';
import { startBulk } from '../../../shared/bulk/service';
import { parseDataPatch } from '../../../shared/contacts/data';
import { deleteField, fieldUsage, fieldValues, listFields } from '../../../shared/contacts/fields';
import { present } from '../../../shared/contacts/repository';
import {
  contactIdSchema,
  fieldValuesQuerySchema,
  jobIdSchema,
  listContactsQuerySchema,
  lookupSchema,
  patchContactSchema,
  upsertContactSchema,
} from '../../../shared/contacts/schemas';
import {
  deleteContact,
  getContact,
  listContacts,
  lookupContacts,
  patchContact,
  upsertContact,
} from '../../../shared/contacts/service';
import { flatBadRequest, notFound } from '../../../shared/errors';
import { lambdaEntry } from '../../../shared/http/lambda';
import { json, ok } from '../../../shared/http/response';
import { type AuthedRequest, httpGroup } from '../../../shared/http/stack';
import { parse } from '../../../shared/http/validation';
import { getImport } from '../../../shared/imports/service';
import type { Deps } from '../../../shared/ports';

const bodyObject = (req: AuthedRequest): Record<string, unknown> =>
  typeof req.body === 'object' && req.body !== null && !Array.isArray(req.body)
    ? (req.body as Record<string, unknown>)
    : {};

const contactId = (req: AuthedRequest) => parse(contactIdSchema, req.params, []).id;
const jobId = (req: AuthedRequest) => parse(jobIdSchema, req.params, []).jobId;

export function routes(deps: Deps) {
  return [
    {
      method: 'GET',
      path: '/contacts',
      handler: async (req: AuthedRequest) => {
        const q = parse(listContactsQuerySchema, req.query);
        const defaultDir = q.sort === 'email' ? 'asc' : 'desc';
        const dir = q.dir === 'asc' || q.dir === 'desc' ? q.dir : defaultDir;
        return ok(
          await listContacts(deps, req.projectId, {
            limit: q.limit,
            cursor: q.cursor,
            search: q.search || undefined,
            subscribed: q.subscribed,
            sort: q.sort,
            dir,
          }),
        );
      },
    },
    {
      method: 'POST',
      path: '/contacts',
      handler: async (req: AuthedRequest) => {
        const body = bodyObject(req);
        if (body.email === undefined || body.email === null || body.email === '')
          throw flatBadRequest('email is required');
        const input = parse(upsertContactSchema, req.body);
        const patch = parseDataPatch(input.data);
        const result = await upsertContact(
          deps,
          req.projectId,
          { email: input.email, subscribed: input.subscribed, patch, source: 'api' },
          { defaultSubscribed: true },
        );
        return json(result.isNew ? 201 : 200, {
          ...present(result.contact),
          _meta: { isNew: result.isNew, isUpdate: !result.isNew },
        });
      },
    },
    {
      method: 'POST',
      path: '/contacts/lookup',
      handler: async (req: AuthedRequest) => {
        const input = parse(lookupSchema, req.body);
        return ok(await lookupContacts(deps, req.projectId, input.emails));
      },
    },
    {
      method: 'GET',
      path: '/contacts/fields',
      handler: async (req: AuthedRequest) => ok({ fields: await listFields(deps, req.projectId) }),
    },
    {
      method: 'GET',
      path: '/contacts/fields/{field}/values',
      handler: async (req: AuthedRequest) => {
        const q = parse(fieldValuesQuerySchema, req.query);
        return ok(await fieldValues(deps, req.projectId, req.params.field ?? '', q.limit));
      },
    },
    {
      method: 'GET',
      path: '/contacts/fields/{field}/usage',
      handler: async (req: AuthedRequest) =>
        ok(await fieldUsage(deps, req.projectId, req.params.field ?? '')),
    },
    {
      method: 'DELETE',
      path: '/contacts/fields/{field}',
      handler: async (req: AuthedRequest) =>
        ok(await deleteField(deps, req.projectId, req.params.field ?? '')),
    },
    {
      method: 'GET',
      path: '/contacts/{id}',
      handler: async (req: AuthedRequest) => ok(await getContact(deps, req.projectId, contactId(req))),
    },
    {
      method: 'PATCH',
      path: '/contacts/{id}',
      handler: async (req: AuthedRequest) => {
        const id = contactId(req);
        const input = parse(patchContactSchema, req.body ?? {});
        const patch = input.data === undefined ? undefined : parseDataPatch(input.data);
        return ok(
          await patchContact(deps, req.projectId, id, {
            email: input.email,
            subscribed: input.subscribed,
            snoozedUntil: input.snoozedUntil,
            patch,
          }),
        );
      },
    },
    {
      method: 'GET',
      path: '/contacts/import/{jobId}',
      handler: async (req: AuthedRequest) => ok(await getImport(deps, req.projectId, jobId(req))),
    },
    ...(['subscribe', 'unsubscribe', 'delete'] as const).map((type) => ({
      method: 'POST',
      path: `/contacts/bulk-${type}`,
      handler: async (req: AuthedRequest) => {
        const input = parse(bulkRequestSchema, req.body);
        return json(202, await startBulk(deps, req.projectId, type, input.contactIds));
      },
    })),
    {
      method: 'GET',
      path: '/contacts/bulk/{jobId}',
      handler: async (req: AuthedRequest) => {
        const job = await getBulkJob(deps, req.projectId, jobId(req));
        if (!job) throw notFound('Bulk job');
        return ok(presentBulkJob(job));
      },
    },
    {
      method: 'DELETE',
      path: '/contacts/{id}',
      handler: async (req: AuthedRequest) => {
        const id = contactId(req);
        await deleteContact(deps, req.projectId, id);
        return ok({ id, deleted: true });
      },
    },
  ] as const;
}

export const createHandler = (deps: Deps) => httpGroup(deps, 'contacts', routes(deps));

export const handler = lambdaEntry(createHandler);
