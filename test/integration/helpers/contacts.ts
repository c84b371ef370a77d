/** Helpers for tests about contacts: fresh addresses, and writing and reading contacts and their events. */
import { expect } from 'vitest';
import { keys } from '../../../shared/table';
import type { ApiClient, Json } from './api';
import type { LocalTestRuntime } from './local';

let seq = 0;
/** A new address each call, so tests never see each other's contacts or mail. */
export const uniqueEmail = (tag = 'r') => `${tag}-${Date.now().toString(36)}-${++seq}@example.org`;

/**
 * POST /contacts (a create or an update: 201 or 200, or exactly `options.status`); the contact
 * answered.
 */
export async function postContact(
  rt: ApiClient,
  body: Record<string, unknown>,
  options: { readonly status?: 200 | 201 } = {},
): Promise<Json> {
  const res = await rt.api('POST', '/contacts', { body });
  if (options.status === undefined) expect([200, 201], res.text).toContain(res.status);
  else expect(res.status, res.text).toBe(options.status);
  return res.body;
}

/** A new contact (POST /contacts answering exactly 201); its id. */
export async function createContact(rt: ApiClient, email: string, subscribed = true): Promise<string> {
  return (await postContact(rt, { email, subscribed }, { status: 201 })).id;
}

/** The contact with `email` as GET /contacts/{id} answers it (found with /contacts/lookup), or undefined. */
export async function contactByEmail(rt: ApiClient, email: string): Promise<Json | undefined> {
  const res = await rt.api('POST', '/contacts/lookup', { body: { emails: [email] } });
  const found = res.body.found[0];
  return found ? (await rt.api('GET', `/contacts/${found.id}`)).body : undefined;
}

/** The type of every field GET /contacts/fields lists, by field name (`data.plan`...). */
export async function fieldTypes(rt: ApiClient): Promise<Record<string, string>> {
  const fields = (await rt.api('GET', '/contacts/fields')).body.fields as { field: string; type: string }[];
  return Object.fromEntries(fields.map((f) => [f.field, f.type]));
}

/** The events of a contact as GET /events/contact/{id} answers them (up to 100). */
export async function listContactEvents(rt: ApiClient, contactId: string): Promise<Json[]> {
  const res = await rt.api('GET', `/events/contact/${contactId}`, { query: { limit: 100 } });
  expect(res.status, res.text).toBe(200);
  return res.body.data;
}

/** The event items of a contact as stored in the table (the API aside), oldest first. */
export async function contactEvents(rt: LocalTestRuntime, contactId: string, projectId = rt.projectId) {
  const events: { name: string; data: Record<string, unknown> }[] = [];
  for await (const item of rt.deps.store.queryAll({
    partition: keys.contactPartition(projectId, contactId),
    sort: { beginsWith: 'EV#' },
  })) {
    events.push({ name: String(item.name), data: item.data as Record<string, unknown> });
  }
  return events;
}

/** The names of a contact's stored events, oldest first. */
export const contactEventNames = async (rt: LocalTestRuntime, contactId: string, projectId = rt.projectId) =>
  (await contactEvents(rt, contactId, projectId)).map((e) => e.name);
