/**
 * The one table definition. CDK creates the table from it, the local runtime creates the same
 * table in the embedded engine, and the repositories build keys with `keys` below: nothing else
 * knows key formats.
 *
 * Indexes are named after the access pattern they serve (`indexes` below); repositories use those
 * names, and the store (shared/store/store.ts) maps them to the physical `gsi1` and `gsi2` (both
 * projecting ALL) and `gsi3` and `gsi4` (keys only).
 *
 * Every key starts with the project id (`P#<projectId>`), so one project can never address
 * another's items. The single exception is the API-key item, which is how a request finds its
 * project in the first place; it is keyed by the SHA-256 of the key and holds the project id.
 * Sender domains add two more, because an SES identity belongs to the whole AWS account rather
 * than to a project: the name claim (one project per domain in a deployment, so a project can
 * never send as a domain another project verified) and the sparse index of pending domains that
 * the five-minute background check reads across projects. Only `shared/domains/repository.ts`
 * reads either, and neither is reachable from a request for another project's data.
 *
 * Deleting or resetting a project (shared/projects/wipe-job.ts) must find items no index lists
 * (email records, import and bulk jobs, idempotency keys): it is the one reader of the whole table,
 * a background Scan filtered on the project's prefix, run by the jobs worker only (manifest use
 * `table:scan`), never on a request path.
 *
 * Access patterns (entity: pattern -> key or index):
 * - project: by id -> pk P#<pid>, sk #PROJECT (with `deletedAt` while it is being deleted, and the
 *   last delete's or reset's state and scan position in `wipe`)
 * - every item of a project (delete, reset: background only) -> Scan, filter pk = P#<pid> OR
 *   begins_with(pk, P#<pid>#)
 * - api key: by hash -> pk KEY#<sha256>, sk #KEY
 * - contact: by id -> pk P#<pid>#C#<cid>, sk #CONTACT
 * - contact: unique email claim, lookup by email -> pk P#<pid>#EMAIL#<lower email>, sk #EMAIL
 * - contacts: list newest/oldest first -> contactsByCreation (P#<pid>#CONTACTS,
 *   <createdAt>#<cid>#<S|U>#<lower email>; keys only: S or U is the subscription, and the list's
 *   filters read it and the email from the key, then the page's contacts are read by key)
 * - contacts: list by email -> contactsByEmail (P#<pid>#CONTACTS, <lower email> <S|U>#<cid>; keys
 *   only, as above; the space sorts below every character an address may hold)
 * - contact stats: live total, subscribed, contacts per custom field path (`c:<path>`), `seq` bumped
 *   by every delta -> pk P#<pid>#CSTATS, sk #STATS
 * - field value counters: most frequent values of one custom field path, with counts -> pk
 *   P#<pid>#CSTATS, sk VALUES#<path>; all counter items of a project -> partition P#<pid>#CSTATS
 * - contact stats recount in progress: position and partial counts -> pk P#<pid>#CSTATS, sk
 *   RECOUNT#<runId> (TTL)
 * - contact events: by contact, by time -> pk P#<pid>#C#<cid>, sk EV#<at>#<eid>
 * - contact event count (what the tally counted of the contact's events, and up to where) -> pk
 *   P#<pid>#C#<cid>, sk #EVCOUNT
 * - events: recent in project -> eventsByTime (P#<pid>#EVENTS, <at>#<eid>)
 * - events: by name -> eventsByName (P#<pid>#EVENT#<name>, <at>#<eid>)
 * - event names: registry with counts, all of a project -> pk P#<pid>#EVNAMES, sk <name>
 * - event counts per UTC hour (stats), with the activity metrics -> pk P#<pid>#EVHOURS, sk <YYYY-MM-DDTHH> (TTL)
 * - activity counts per UTC day (analytics) -> pk P#<pid>#EVDAYS, sk <YYYY-MM-DD> (TTL)
 * - activity counts per UTC minute (recent count) -> pk P#<pid>#EVMINUTES, sk <YYYY-MM-DDTHH:MM> (TTL)
 * - event counters' tally position (how far the counters have counted events) -> pk P#<pid>#EVTALLY, sk #TALLY
 * - events a tally batch counted, by the batch's end (the tally's settle pass finds the events it
 *   missed) -> pk P#<pid>#EVTALLY, sk W#<to>#<batchId> (TTL)
 * - custom field types: per project -> pk P#<pid>, sk FIELD#<path>
 * - sender domains: by name, all of a project -> pk P#<pid>, sk DOMAIN#<name>
 * - sender domain: by id -> pk P#<pid>, sk DOMAINID#<id> (holds the name)
 * - sender domain name: which project holds it (exception) -> pk DOMAIN#<name>, sk #CLAIM
 * - sender domains: pending, all projects, least recently checked first (exception; sparse:
 *   only PENDING domains carry it) -> pendingDomains (DOMAINS#PENDING, <checkedAt>#<pid>#<id>)
 * - segments, campaigns, workflows: by id, all of a project -> pk P#<pid>, sk SEGMENT#|CAMPAIGN#|WORKFLOW#<id>
 * - segment slug: unique in the project -> pk P#<pid>, sk SEGSLUG#<slug> (holds the segment id)
 * - segment membership: a contact's segments -> pk P#<pid>#C#<cid>, sk SEG#<segmentId>
 * - segment members: by segment, oldest contact first -> segmentMembers (P#<pid>#SEG#<segmentId>,
 *   <contact createdAt>#<cid>)
 * - segment snapshot (the contacts a tracked segment has announced, `segments/announce.ts`, or an
 *   untracked one's last compute stored) -> pk P#<pid>#SEGSNAP#<segmentId>, sk <cid>
 * - segments needing periodic work (tracked, time-relative or event-based conditions), all
 *   projects (exception; sparse: only such segments carry it) -> periodicSegments
 *   (SEGMENTS#PERIODIC, <pid>#<segmentId>)
 * - workflow: event names the project's workflows start on or wait for -> pk P#<pid>, sk WFINTEREST
 * - workflow execution: by id -> pk P#<pid>#WFX#<workflowId>, sk X#<executionId>
 * - workflow executions: by status, newest first -> executionsByStatus (P#<pid>#WFX#<wid>#<STATUS>
 *   for an ended status, P#<pid>#WFX#<wid>#ACTIVE for RUNNING and WAITING together (an earlier
 *   version's RUNNING or WAITING partition until the execution's next move),
 *   <startedAt>#<executionId>; keys only: the page's executions are then read by key, and a list of
 *   RUNNING or WAITING keeps those of its status)
 * - workflow waits by due time, soonest first (upcoming) -> pk P#<pid>#WFDUE, sk
 *   <due>#<workflowId>#<executionId> (TTL a day after the due time)
 * - workflow execution counts by status -> pk P#<pid>#WFX#<workflowId>, sk #COUNTS
 * - a contact's entries into a workflow (re-entry rule; the active execution, through which the
 *   contact's event finds a WAITING one) -> pk P#<pid>#C#<cid>, sk WFENTRY#<workflowId>
 * - executions waiting for a contact's event, as an earlier version kept them (a wait now writes
 *   none; the workflow purge still deletes any left) -> pk P#<pid>#C#<cid>, sk WFWAIT#<name>#<executionId>
 * - campaign run (fan-out position, recipients' outcome counters) -> pk P#<pid>#CAMPAIGN#<cid>, sk #RUN
 * - audience count of a campaign, the latest (status, position, counts, sample) -> pk
 *   P#<pid>#CAMPAIGN#<cid>, sk #AUDIENCE (TTL)
 * - audience count of a condition tree alone, by id -> pk P#<pid>#AUDIENCE#<id>, sk #COUNT (TTL)
 * - SES send-rate windows, shared by every project (exception: the rate is the account's) ->
 *   pk SENDRATE#<epoch second>, sk #RATE (TTL)
 * - templates: by id, all of a project -> pk P#<pid>, sk TEMPLATE#<id>
 * - email records (one per recipient of a send): by id -> pk P#<pid>#MSG#<eid>, sk #MSG
 * - suppressed addresses: by address, all of a project -> pk P#<pid>#SUPPRESSED, sk <email, lower case>
 * - import jobs: by id (status, counts, checkpoint) -> pk P#<pid>#IMPORT#<jobId>, sk #JOB (TTL)
 * - import row errors: by job, in row order -> pk P#<pid>#IMPORT#<jobId>, sk ERR#<first row, 10 digits> (TTL)
 * - bulk jobs: by id (status, ids, counts, failures) -> pk P#<pid>#BULK#<jobId>, sk #JOB (TTL)
 * - idempotency keys -> pk P#<pid>#IDEM#<scope>#<key>, sk #IDEM (TTL)
 * - rate-limit windows -> pk P#<pid>#RATE#<window>, sk #RATE (TTL)
 * - monthly send caps per category (shared/billing) -> pk P#<pid>, sk BILLING#LIMITS
 * - sends counted per category in one calendar month (UTC), the caps' reservations -> pk
 *   P#<pid>#USAGE, sk <YYYY-MM>
 * - the project's Stripe customer and subscription (shared/billing/subscription.ts) -> pk P#<pid>,
 *   sk BILLING#STRIPE
 * - Stripe customer: which project it pays for (exception: Stripe's events name the customer, not
 *   the project) -> pk STRIPECUSTOMER#<customer id>, sk #CLAIM
 * - Stripe event: claimed once, applied once (exception: claimed before its project is known) ->
 *   pk STRIPEEVENT#<event id>, sk #EVENT (TTL)
 *
 * Accounts (exceptions: a person is not inside one project; only shared/accounts reads these, and
 * a user reaches a project's data only through a membership item):
 * - user: by id -> pk USER#<uid>, sk #USER; by email (unique claim) -> pk USEREMAIL#<lower email>,
 *   sk #CLAIM
 * - sessions of a user (revocation) -> pk USER#<uid>, sk SESSION#<sid> (TTL)
 * - one-time tokens of a user (verification, password reset) -> pk USER#<uid>, sk TOKEN#<jti> (TTL)
 * - failed logins of an email address in the current window -> pk LOGINFAIL#<lower email>, sk #FAILS (TTL)
 * - a user's rate-limit windows -> pk USER#<uid>#RATE#<window>, sk #RATE (TTL)
 * - membership: by project -> pk P#<pid>, sk MEMBER#<uid>; by user -> pk USER#<uid>, sk PROJECT#<pid>
 * - members of a project (list, owner count) -> pk P#<pid>, sk begins_with MEMBER#; OWNER count ->
 *   `owners` on the project item (shared/accounts/owners.ts)
 * - pending invitation to a project, by address (one per address; TTL) -> pk P#<pid>, sk
 *   INVITE#<lower email>
 */

export interface IndexDef {
  readonly name: string;
  readonly partitionKey: string;
  readonly sortKey: string;
  /**
   * What the index holds besides its keys: `ALL` (every attribute, so a query answers whole items,
   * and every change to an item in it rewrites its entry) or `KEYS_ONLY` (the table's and the
   * index's keys: an entry is written only when the item enters, leaves or moves in the index).
   */
  readonly projection: 'ALL' | 'KEYS_ONLY';
}

export const table = {
  partitionKey: 'pk',
  sortKey: 'sk',
  /** Epoch seconds; DynamoDB deletes expired items eventually, so reads must still filter them. */
  ttlAttribute: 'expiresAt',
  indexes: [
    { name: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk', projection: 'ALL' },
    { name: 'gsi2', partitionKey: 'gsi2pk', sortKey: 'gsi2sk', projection: 'ALL' },
    { name: 'gsi3', partitionKey: 'gsi3pk', sortKey: 'gsi3sk', projection: 'KEYS_ONLY' },
    { name: 'gsi4', partitionKey: 'gsi4pk', sortKey: 'gsi4sk', projection: 'KEYS_ONLY' },
  ],
} as const satisfies {
  partitionKey: string;
  sortKey: string;
  ttlAttribute: string;
  indexes: readonly IndexDef[];
};

export type IndexName = (typeof table.indexes)[number]['name'];

/**
 * Indexes by the access pattern they serve: repositories name these, never `gsi1`/`gsi2`/`gsi3`.
 * Patterns share a physical index where their partitions never meet (every partition value starts
 * with the project id and the pattern's own suffix, see `keys`).
 */
export const indexes = {
  /**
   * Live contacts of a project, newest or oldest first (a tombstone leaves it). Keys only, as
   * `contactsByEmail`: a contact's write that keeps its creation time, email and subscription
   * writes no index entry (a 3.5 KB contact's one-field update is its table write alone).
   */
  contactsByCreation: 'gsi3',
  /** Live contacts of a project by lower-case email (keys only). */
  contactsByEmail: 'gsi4',
  /** Events of a project by time. */
  eventsByTime: 'gsi1',
  /** Events of one name by time. */
  eventsByName: 'gsi2',
  /** PENDING sender domains of every project, least recently checked first (sparse). */
  pendingDomains: 'gsi1',
  /** Members of one segment, oldest contact first. */
  segmentMembers: 'gsi1',
  /** Segments of every project that the periodic segment job revisits (sparse). */
  periodicSegments: 'gsi2',
  /**
   * A workflow's executions of one ended status, or active (RUNNING and WAITING), newest first:
   * keys only, so a step's rewrite of its execution writes no index entry (only its end does).
   */
  executionsByStatus: 'gsi3',
} as const satisfies Record<string, IndexName>;

export type AccessIndex = keyof typeof indexes;

/** The key attribute names of an access pattern's index, or of the table itself. */
export function keyAttributes(index?: AccessIndex): {
  readonly partitionKey: string;
  readonly sortKey: string;
} {
  if (!index) return table;
  const def = table.indexes.find((i) => i.name === indexes[index]);
  if (!def) throw new Error(`No index ${indexes[index]} for ${index}`);
  return def;
}

/** The attributes that put an item in an access pattern's index, at `partition` and `sort`. */
export function indexEntry(index: AccessIndex, partition: string, sort: string): Record<string, string> {
  const { partitionKey, sortKey } = keyAttributes(index);
  return { [partitionKey]: partition, [sortKey]: sort };
}

const P = (projectId: string) => `P#${projectId}`;
/** Sort-key prefix of the tally's batch windows (`eventTallyWindow`). */
const TALLY_WINDOW_PREFIX = 'W#';

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
  /** Contact counters (shared/contacts/stats.ts): one partition per project. */
  contactStatsPartition: (projectId: string) => `${P(projectId)}#CSTATS`,
  contactStats: (projectId: string) => ({ pk: `${P(projectId)}#CSTATS`, sk: '#STATS' }),
  fieldValueCounts: (projectId: string, path: string) => ({
    pk: `${P(projectId)}#CSTATS`,
    sk: `VALUES#${path}`,
  }),
  fieldValueCountsPrefix: 'VALUES#',
  contactRecount: (projectId: string, runId: string) => ({
    pk: `${P(projectId)}#CSTATS`,
    sk: `RECOUNT#${runId}`,
  }),
  contactEvent: (projectId: string, contactId: string, at: string, eventId: string) => ({
    pk: `${P(projectId)}#C#${contactId}`,
    sk: `EV#${at}#${eventId}`,
  }),
  contactEventPrefix: 'EV#',
  /** The tally's count of a contact's events (shared/events/repository.ts, `contactEventTotal`). */
  contactEventCount: (projectId: string, contactId: string) => ({
    pk: `${P(projectId)}#C#${contactId}`,
    sk: '#EVCOUNT',
  }),
  eventsIndex: (projectId: string) => `${P(projectId)}#EVENTS`,
  eventNameIndex: (projectId: string, name: string) => `${P(projectId)}#EVENT#${name}`,
  eventNamesPartition: (projectId: string) => `${P(projectId)}#EVNAMES`,
  eventName: (projectId: string, name: string) => ({ pk: `${P(projectId)}#EVNAMES`, sk: name }),
  eventHoursPartition: (projectId: string) => `${P(projectId)}#EVHOURS`,
  eventHour: (projectId: string, hour: string) => ({ pk: `${P(projectId)}#EVHOURS`, sk: hour }),
  eventDaysPartition: (projectId: string) => `${P(projectId)}#EVDAYS`,
  eventDay: (projectId: string, day: string) => ({ pk: `${P(projectId)}#EVDAYS`, sk: day }),
  eventMinutesPartition: (projectId: string) => `${P(projectId)}#EVMINUTES`,
  eventMinute: (projectId: string, minute: string) => ({ pk: `${P(projectId)}#EVMINUTES`, sk: minute }),
  eventTally: (projectId: string) => ({ pk: `${P(projectId)}#EVTALLY`, sk: '#TALLY' }),
  eventTallyWindow: (projectId: string, to: string, batchId: string) => ({
    pk: `${P(projectId)}#EVTALLY`,
    sk: `${TALLY_WINDOW_PREFIX}${to}#${batchId}`,
  }),
  eventTallyWindowPrefix: TALLY_WINDOW_PREFIX,
  projectPartition: (projectId: string) => P(projectId),
  domain: (projectId: string, name: string) => ({ pk: P(projectId), sk: `DOMAIN#${name}` }),
  domainPrefix: 'DOMAIN#',
  domainId: (projectId: string, domainId: string) => ({ pk: P(projectId), sk: `DOMAINID#${domainId}` }),
  domainClaim: (name: string) => ({ pk: `DOMAIN#${name}`, sk: '#CLAIM' }),
  /** A few pending domains at any time, written only on add and check: one partition suffices. */
  pendingDomainsIndex: 'DOMAINS#PENDING',
  pendingDomainSort: (checkedAt: string, projectId: string, domainId: string) =>
    `${checkedAt}#${projectId}#${domainId}`,
  /**
   * The version of the project's segment definitions: moved by every segment create, edit and
   * delete, read by every contact write (shared/segments/evaluation.ts).
   */
  segmentsVersion: (projectId: string) => ({ pk: P(projectId), sk: '#SEGVERSION' }),
  /** Prefixes of project-level definitions, which may reference fields, events and templates. */
  definitionPrefixes: { segment: 'SEGMENT#', campaign: 'CAMPAIGN#', workflow: 'WORKFLOW#' } as const,
  segment: (projectId: string, segmentId: string) => ({ pk: P(projectId), sk: `SEGMENT#${segmentId}` }),
  segmentSlug: (projectId: string, slug: string) => ({ pk: P(projectId), sk: `SEGSLUG#${slug}` }),
  segmentMembership: (projectId: string, contactId: string, segmentId: string) => ({
    pk: `${P(projectId)}#C#${contactId}`,
    sk: `SEG#${segmentId}`,
  }),
  segmentMembershipPrefix: 'SEG#',
  segmentMembersIndex: (projectId: string, segmentId: string) => `${P(projectId)}#SEG#${segmentId}`,
  segmentSnapshotPartition: (projectId: string, segmentId: string) => `${P(projectId)}#SEGSNAP#${segmentId}`,
  segmentSnapshot: (projectId: string, segmentId: string, contactId: string) => ({
    pk: `${P(projectId)}#SEGSNAP#${segmentId}`,
    sk: contactId,
  }),
  /** The few segments with periodic work, across projects: one partition suffices. */
  periodicSegmentsIndex: 'SEGMENTS#PERIODIC',
  periodicSegmentSort: (projectId: string, segmentId: string) => `${projectId}#${segmentId}`,
  field: (projectId: string, path: string) => ({ pk: P(projectId), sk: `FIELD#${path}` }),
  fieldPrefix: 'FIELD#',
  campaign: (projectId: string, campaignId: string) => ({ pk: P(projectId), sk: `CAMPAIGN#${campaignId}` }),
  campaignRun: (projectId: string, campaignId: string) => ({
    pk: `${P(projectId)}#CAMPAIGN#${campaignId}`,
    sk: '#RUN',
  }),
  /** One range of a campaign's send (shared/campaigns/repository.ts), in its run's partition. */
  campaignRange: (projectId: string, campaignId: string, runId: string, no: number) => ({
    pk: `${P(projectId)}#CAMPAIGN#${campaignId}`,
    sk: `RANGE#${runId}#${String(no).padStart(8, '0')}`,
  }),
  /** The latest audience count of a campaign (shared/campaigns/count-repository.ts), in its run's partition. */
  campaignAudienceCount: (projectId: string, campaignId: string) => ({
    pk: `${P(projectId)}#CAMPAIGN#${campaignId}`,
    sk: '#AUDIENCE',
  }),
  /** An audience count of a condition tree alone (`POST /audiences`). */
  treeAudienceCount: (projectId: string, countId: string) => ({
    pk: `${P(projectId)}#AUDIENCE#${countId}`,
    sk: '#COUNT',
  }),
  /** One second of the account's SES send rate (shared/campaigns/send-rate.ts). */
  sendRateWindow: (second: number) => ({ pk: `SENDRATE#${second}`, sk: '#RATE' }),
  workflow: (projectId: string, workflowId: string) => ({ pk: P(projectId), sk: `WORKFLOW#${workflowId}` }),
  /** The event names the project's workflows start on or wait for (shared/workflows/interest.ts). */
  workflowInterest: (projectId: string) => ({ pk: P(projectId), sk: 'WFINTEREST' }),
  execution: (projectId: string, workflowId: string, executionId: string) => ({
    pk: `${P(projectId)}#WFX#${workflowId}`,
    sk: `X#${executionId}`,
  }),
  /** The ids an execution's key holds (its item stores them nowhere else, to stay small). */
  executionIds: (key: { readonly pk: unknown; readonly sk: unknown }) => {
    const [, projectId, workflowId] = /^P#([^#]+)#WFX#([^#]+)$/.exec(String(key.pk)) ?? [];
    const executionId = String(key.sk).startsWith('X#') ? String(key.sk).slice(2) : undefined;
    if (!projectId || !workflowId || !executionId)
      throw new Error(`Not an execution key: ${key.pk} ${key.sk}`);
    return { projectId, workflowId, executionId };
  },
  /** A workflow's executions counted by status. */
  executionCounts: (projectId: string, workflowId: string) => ({
    pk: `${P(projectId)}#WFX#${workflowId}`,
    sk: '#COUNTS',
  }),
  executionsIndex: (projectId: string, workflowId: string, status: string) =>
    `${P(projectId)}#WFX#${workflowId}#${status}`,
  /**
   * A WAITING execution's due time (a DELAY's end, a WAIT_FOR_EVENT's timeout), in one partition
   * per project ordered by it: `GET /activity/upcoming` (TTL after the due time).
   */
  workflowDue: (projectId: string, at: string, workflowId: string, executionId: string) => ({
    pk: `${P(projectId)}#WFDUE`,
    sk: `${at}#${workflowId}#${executionId}`,
  }),
  workflowDuePartition: (projectId: string) => `${P(projectId)}#WFDUE`,
  /** The due time and ids a due item's sort key holds. */
  workflowDueOf: (sk: string) => {
    const [, at, workflowId, executionId] = /^([^#]+)#([^#]+)#([^#]+)$/.exec(sk) ?? [];
    return at && workflowId && executionId ? { at, workflowId, executionId } : undefined;
  },
  /** A contact's entries into a workflow: the re-entry rule's conditional writes. */
  workflowEntry: (projectId: string, contactId: string, workflowId: string) => ({
    pk: `${P(projectId)}#C#${contactId}`,
    sk: `WFENTRY#${workflowId}`,
  }),
  /** An execution waiting for the contact's event `name`, as an earlier version kept it (purge only). */
  workflowWait: (projectId: string, contactId: string, name: string, executionId: string) => ({
    pk: `${P(projectId)}#C#${contactId}`,
    sk: `WFWAIT#${name}#${executionId}`,
  }),
  template: (projectId: string, templateId: string) => ({ pk: P(projectId), sk: `TEMPLATE#${templateId}` }),
  templatePrefix: 'TEMPLATE#',
  /** An address the project no longer sends to (a permanent bounce or a complaint). */
  suppression: (projectId: string, email: string) => ({
    pk: `${P(projectId)}#SUPPRESSED`,
    sk: email.toLowerCase(),
  }),
  suppressionPartition: (projectId: string) => `${P(projectId)}#SUPPRESSED`,
  emailMessage: (projectId: string, emailId: string) => ({
    pk: `${P(projectId)}#MSG#${emailId}`,
    sk: '#MSG',
  }),
  importJob: (projectId: string, jobId: string) => ({ pk: `${P(projectId)}#IMPORT#${jobId}`, sk: '#JOB' }),
  importErrors: (projectId: string, jobId: string, firstRow: number) => ({
    pk: `${P(projectId)}#IMPORT#${jobId}`,
    sk: `ERR#${String(firstRow).padStart(10, '0')}`,
  }),
  importErrorsPrefix: 'ERR#',
  bulkJob: (projectId: string, jobId: string) => ({ pk: `${P(projectId)}#BULK#${jobId}`, sk: '#JOB' }),
  idempotency: (projectId: string, scope: string, key: string) => ({
    pk: `${P(projectId)}#IDEM#${scope}#${key}`,
    sk: '#IDEM',
  }),
  rateWindow: (projectId: string, window: number) => ({ pk: `${P(projectId)}#RATE#${window}`, sk: '#RATE' }),
  /** A project's monthly send caps (shared/billing/repository.ts). */
  billingLimits: (projectId: string) => ({ pk: P(projectId), sk: 'BILLING#LIMITS' }),
  /** A project's sends of one calendar month (`YYYY-MM`, UTC), per category: the caps' counter. */
  billingUsage: (projectId: string, month: string) => ({ pk: `${P(projectId)}#USAGE`, sk: month }),
  /** A project's Stripe customer and subscription (shared/billing/subscription.ts). */
  billingStripe: (projectId: string) => ({ pk: P(projectId), sk: 'BILLING#STRIPE' }),
  /** The project a Stripe customer pays for: holds the project id. */
  stripeCustomer: (customerId: string) => ({ pk: `STRIPECUSTOMER#${customerId}`, sk: '#CLAIM' }),
  /** One Stripe event's claim (TTL): deliveries of an event share its id. */
  stripeEvent: (eventId: string) => ({ pk: `STRIPEEVENT#${eventId}`, sk: '#EVENT' }),
  // Accounts (shared/accounts): people sit above projects, so these keys start with the user.
  user: (userId: string) => ({ pk: `USER#${userId}`, sk: '#USER' }),
  /** A user's email, unique across the deployment (case-insensitive): holds the user id. */
  userEmail: (email: string) => ({ pk: `USEREMAIL#${email.toLowerCase()}`, sk: '#CLAIM' }),
  userSession: (userId: string, sessionId: string) => ({ pk: `USER#${userId}`, sk: `SESSION#${sessionId}` }),
  userSessionPrefix: 'SESSION#',
  userPartition: (userId: string) => `USER#${userId}`,
  /** A mailed one-time token (verification, reset): deleted when used, so it works once. */
  userToken: (userId: string, tokenId: string) => ({ pk: `USER#${userId}`, sk: `TOKEN#${tokenId}` }),
  /** Failed logins of one email address in the current window (TTL). */
  loginFailures: (email: string) => ({ pk: `LOGINFAIL#${email.toLowerCase()}`, sk: '#FAILS' }),
  /** A signed-in user's rate-limit window on the user routes (TTL). */
  userRateWindow: (userId: string, window: number) => ({ pk: `USER#${userId}#RATE#${window}`, sk: '#RATE' }),
  /** A project's member, by project (the project's side of the membership). */
  member: (projectId: string, userId: string) => ({ pk: P(projectId), sk: `MEMBER#${userId}` }),
  memberPrefix: 'MEMBER#',
  /** A pending invitation to a project, one per address (a new one replaces it; TTL). */
  invitation: (projectId: string, email: string) => ({
    pk: P(projectId),
    sk: `INVITE#${email.toLowerCase()}`,
  }),
  /** A user's project, by user (the user's side of the membership: their project list). */
  userProject: (userId: string, projectId: string) => ({ pk: `USER#${userId}`, sk: `PROJECT#${projectId}` }),
  userProjectPrefix: 'PROJECT#',
} as const;
