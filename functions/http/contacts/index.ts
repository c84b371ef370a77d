/** Contacts route group: parses and validates input, calls one use case, maps the result. */

import { bulkRequestSchema } from '../../../shared/bulk/schemas';
import { getBulk, startBulk } from '../../../shared/bulk/service';
import { dynamoStore } from '../../../shared/composition/aws-wiring/dynamo';
import { sqsQueue } from '../../../shared/composition/aws-wiring/sqs';
import { ssmLinkSigningSecret } from '../../../shared/composition/aws-wiring/ssm';
import { parseDataPatch } from '../../../shared/contacts/data';
import { deleteField, fieldUsage, fieldValues, listFields } from '../../../shared/contacts/fields';
import { present } from '../../../shared/contacts/repository';
import {
  bulkJobAnswer,
  contactAnswer,
  contactListAnswer,
  contactUpsertAnswer,
  fieldDeletedAnswer,
  fieldsAnswer,
  fieldUsageAnswer,
  fieldValuesAnswer,
  importJobAnswer,
  lookupAnswer,
} from '../../../shared/contacts/responses';
import {
  contactIdSchema,
  fieldParamSchema,
  fieldValuesQuerySchema,
  jobIdSchema,
  listContactsQuerySchema,
  lookupSchema,
  parseUpsertContact,
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
import { deletedAnswer, queuedJobAnswer } from '../../../shared/http/answers';
import { lambdaEntry } from '../../../shared/http/lambda';
import { json, ok } from '../../../shared/http/response';
import { type AuthedRequest, httpGroup, type RouteImpl, route } from '../../../shared/http/stack';
import { parse } from '../../../shared/http/validation';
import { getImport } from '../../../shared/imports/service';
import type { Deps } from '../../../shared/ports';

export function routes(deps: Deps): RouteImpl[] {
  return [
    {
      method: 'GET',
      path: '/contacts',
      responses: { 200: contactListAnswer },
      query: listContactsQuerySchema,
      handler: async (req: AuthedRequest) =>
        ok(await listContacts(deps, req.projectId, parse(listContactsQuerySchema, req.query))),
    },
    {
      method: 'POST',
      path: '/contacts',
      responses: { 200: contactUpsertAnswer, 201: contactUpsertAnswer },
      body: upsertContactSchema,
      flatBadRequest: true,
      handler: async (req: AuthedRequest) => {
        const input = parseUpsertContact(req.body);
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
      responses: { 200: lookupAnswer },
      body: lookupSchema,
      handler: async (req: AuthedRequest) => {
        const input = parse(lookupSchema, req.body);
        return ok(await lookupContacts(deps, req.projectId, input.emails));
      },
    },
    {
      method: 'GET',
      path: '/contacts/fields',
      responses: { 200: fieldsAnswer },
      handler: async (req: AuthedRequest) => ok({ fields: await listFields(deps, req.projectId) }),
    },
    route({
      method: 'GET',
      path: '/contacts/fields/{field}/values',
      responses: { 200: fieldValuesAnswer },
      query: fieldValuesQuerySchema,
      params: fieldParamSchema,
      handler: async (req) => {
        const q = parse(fieldValuesQuerySchema, req.query);
        return ok(await fieldValues(deps, req.projectId, req.params.field, q.limit));
      },
    }),
    route({
      method: 'GET',
      path: '/contacts/fields/{field}/usage',
      responses: { 200: fieldUsageAnswer },
      params: fieldParamSchema,
      handler: async (req) => ok(await fieldUsage(deps, req.projectId, req.params.field)),
    }),
    route({
      method: 'DELETE',
      path: '/contacts/fields/{field}',
      responses: { 200: fieldDeletedAnswer },
      params: fieldParamSchema,
      handler: async (req) => ok(await deleteField(deps, req.projectId, req.params.field)),
    }),
    route({
      method: 'GET',
      path: '/contacts/{id}',
      responses: { 200: contactAnswer },
      params: contactIdSchema,
      handler: async (req) => ok(await getContact(deps, req.projectId, req.params.id)),
    }),
    route({
      method: 'PATCH',
      path: '/contacts/{id}',
      responses: { 200: contactAnswer },
      body: patchContactSchema,
      params: contactIdSchema,
      handler: async (req) => {
        const input = parse(patchContactSchema, req.body ?? {});
        const patch = input.data === undefined ? undefined : parseDataPatch(input.data);
        return ok(
          await patchContact(deps, req.projectId, req.params.id, {
            email: input.email,
            subscribed: input.subscribed,
            snoozedUntil: input.snoozedUntil,
            patch,
          }),
        );
      },
    }),
    route({
      method: 'GET',
      path: '/contacts/import/{jobId}',
      responses: { 200: importJobAnswer },
      params: jobIdSchema,
      handler: async (req) => ok(await getImport(deps, req.projectId, req.params.jobId)),
    }),
    ...(['subscribe', 'unsubscribe', 'delete'] as const).map((type) => ({
      method: 'POST',
      path: `/contacts/bulk-${type}`,
      responses: { 202: queuedJobAnswer },
      body: bulkRequestSchema,
      handler: async (req: AuthedRequest) => {
        const input = parse(bulkRequestSchema, req.body);
        return json(202, await startBulk(deps, req.projectId, type, input.contactIds));
      },
    })),
    route({
      method: 'GET',
      path: '/contacts/bulk/{jobId}',
      responses: { 200: bulkJobAnswer },
      params: jobIdSchema,
      handler: async (req) => {
        return ok(await getBulk(deps, req.projectId, req.params.jobId));
      },
    }),
    route({
      method: 'DELETE',
      path: '/contacts/{id}',
      responses: { 200: deletedAnswer },
      params: contactIdSchema,
      handler: async (req) => {
        await deleteContact(deps, req.projectId, req.params.id);
        return ok({ id: req.params.id, deleted: true });
      },
    }),
  ];
}

export const createHandler = (deps: Deps) => httpGroup(deps, 'contacts', routes);

export const handler = lambdaEntry(createHandler, {
  kind: 'http',
  name: 'contacts',
  // The AWS adapters of the ports its declared uses need (checked by awsDeps and the tests).
  wiring: { store: dynamoStore, queue: sqsQueue, linkSigningSecret: ssmLinkSigningSecret },
});
