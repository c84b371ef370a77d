/**
 * Every background job of the service, derived from the domains' job modules: each
 * `shared/<noun>/jobs.ts` exports its `jobs` (and `normalizers`, when foreign message shapes on
 * the queue become its jobs), and the jobs worker runs `allJobs`. A domain with background work
 * adds its module to `domainJobs` below, nothing else; `test/unit/jobs/catalog.test.ts` fails when
 * a `jobs.ts` is missing here, when two jobs share a type, or when a job that code enqueues is not
 * in `allJobs` with the very schema it was enqueued with.
 */
import * as bulk from '../bulk/jobs';
import * as campaigns from '../campaigns/jobs';
import * as contacts from '../contacts/jobs';
import * as emailEvents from '../email-events/jobs';
import * as events from '../events/jobs';
import * as imports from '../imports/jobs';
import * as inbound from '../inbound/jobs';
import * as projects from '../projects/jobs';
import * as segments from '../segments/jobs';
import * as workflows from '../workflows/jobs';
import type { JobDef, Normalizer } from './registry';

/** What a domain's `jobs.ts` exports. */
export interface DomainJobs {
  readonly jobs: readonly JobDef[];
  readonly normalizers?: readonly Normalizer[];
}

/** The domains' job modules, by noun. */
export const domainJobs = {
  bulk,
  campaigns,
  contacts,
  emailEvents,
  events,
  imports,
  inbound,
  projects,
  segments,
  workflows,
} satisfies Readonly<Record<string, DomainJobs>>;

const modules: readonly DomainJobs[] = Object.values(domainJobs);

export const allJobs: readonly JobDef[] = modules.flatMap((d) => d.jobs);

export const allNormalizers: readonly Normalizer[] = modules.flatMap((d) => d.normalizers ?? []);
