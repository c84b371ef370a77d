/**
 * The one table definition. CDK creates the table from it, the local runtime creates the same
 * table in the embedded engine, and the repositories build keys with `keys` below: nothing else
 * knows key formats.
 *
 * Every key starts with the project id (`P#<projectId>`), so one project can never address
 * another's items. The single exception is the API-key item, which is how a request finds its
 * project in the first place; it is keyed by the SHA-256 of the key and holds the project id.
 *
 * Access patterns (entity: pattern -> key or index):
 * - project: by id -> pk P#<pid>, sk #PROJECT
 * - api key: by hash -> pk KEY#<sha256>, sk #KEY
 * - contact: by id -> pk P#<pid>#C#<cid>, sk #CONTACT
 * - contact: unique email claim, lookup by email -> pk P#<pid>#EMAIL#<lower email>, sk #EMAIL
 * - contacts: list newest/oldest first -> gsi1 (P#<pid>#CONTACTS, <createdAt>#<cid>)
 * - contacts: list by email -> gsi2 (P#<pid>#CONTACTS, <lower email>#<cid>)
 * - contact events: by contact, by time -> pk P#<pid>#C#<cid>, sk EV#<at>#<eid>
 * - events: recent in project -> gsi1 (P#<pid>#EVENTS, <at>#<eid>)
 * - events: by name -> gsi2 (P#<pid>#EVENT#<name>, <at>#<eid>)
 * - custom field types: per project -> pk P#<pid>, sk FIELD#<path>
 * - sender domains: by name, all of a project -> pk P#<pid>, sk DOMAIN#<name>
 * - segments, campaigns, workflows: by id, all of a project -> pk P#<pid>, sk SEGMENT#|CAMPAIGN#|WORKFLOW#<id>
 * - idempotency keys -> pk P#<pid>#IDEM#<scope>#<key>, sk #IDEM (TTL)
 * - rate-limit windows -> pk P#<pid>#RATE#<window>, sk #RATE (TTL)
 */

export interface IndexDef {
  readonly name: string;
  readonly partitionKey: string;
  readonly sortKey: string;
}

export const table = {
  partitionKey: 'pk',
  sortKey: 'sk',
  /** Epoch seconds; DynamoDB deletes expired items eventually, so reads must still filter them. */
  ttlAttribute: 'expiresAt',
  indexes: [
    { name: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' },
    { name: 'gsi2', partitionKey: 'gsi2pk', sortKey: 'gsi2sk' },
  ],
} as const satisfies {
  partitionKey: string;
  sortKey: string;
  ttlAttribute: string;
  indexes: readonly IndexDef[];
};

export type IndexName = (typeof table.indexes)[number]['name'];

const P = (projectId: string) => `P#${projectId}`;

/** Key builders. Only repositories call these. */
export const keys = {
  project: (projectId: string) => ({ pk: P(projectId), sk: '#PROJECT' }),
  apiKey: (keyHash: string) => ({ pk: `KEY#${keyHash}`, sk: '#KEY' }),
  contact: (projectId: string, contactId: string) => ({
    pk: `${P(projectId)}#C#${contactId}`,
    sk: '#CONTACT',
  }),
  contactPartition: (projectId: string, contactId: string) => `${P(projectId)}#C#${contactId}`,
  emailClaim: (projectId: string, email: string) => ({
    pk: `${P(projectId)}#EMAIL#${email.toLowerCase()}`,
    sk: '#EMAIL',
  }),
  contactsIndex: (projectId: string) => `${P(projectId)}#CONTACTS`,
  contactEvent: (projectId: string, contactId: string, at: string, eventId: string) => ({
    pk: `${P(projectId)}#C#${contactId}`,
    sk: `EV#${at}#${eventId}`,
  }),
  eventsIndex: (projectId: string) => `${P(projectId)}#EVENTS`,
  eventNameIndex: (projectId: string, name: string) => `${P(projectId)}#EVENT#${name}`,
  projectPartition: (projectId: string) => P(projectId),
  domain: (projectId: string, name: string) => ({ pk: P(projectId), sk: `DOMAIN#${name}` }),
  /** Prefixes of project-level definitions that may reference contact fields. */
  definitionPrefixes: ['SEGMENT#', 'CAMPAIGN#', 'WORKFLOW#'] as const,
  field: (projectId: string, path: string) => ({ pk: P(projectId), sk: `FIELD#${path}` }),
  idempotency: (projectId: string, scope: string, key: string) => ({
    pk: `${P(projectId)}#IDEM#${scope}#${key}`,
    sk: '#IDEM',
  }),
  rateWindow: (projectId: string, window: number) => ({ pk: `${P(projectId)}#RATE#${window}`, sk: '#RATE' }),
} as const;
