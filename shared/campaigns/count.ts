/**
 * The audience count: how many contacts a campaign (or a condition tree alone) would mail if it
 * were sent now, how many of its audience are left out and why, and the first recipients as a
 * sample. A chunked job (shared/jobs/chunked.ts) over the count's item (`count-repository.ts`).
 *
 * It decides with the fan-out's own code, so the count is what a send started at the count's
 * instant (`at`) would mail: the audience's pages from `audiencePage` (audience.ts, with the
 * campaign's audience as it was when the count started, contacts created after `at` left out and
 * time-relative conditions judged at `at`), then the rules of `eligibility.ts` in their order
 * (unsubscribed, suppressed, snoozed, judged at `at`). What it cannot foresee: contacts and
 * suppressions that change between the count and the send, and the monthly cap, which a send
 * checks when it starts.
 *
 * A chunk is one page of candidates (`chunkSize`, 100 by default); its counts and the next
 * position are committed in one update conditional on the chunk number (a chunk run twice counts
 * once); each message runs chunks until its budget, then queues its continuation.
 */
import { type ChunkOptions, chunkedJob } from '../jobs/chunked';
import type { Deps } from '../ports';
import { type Audience, audiencePage, prepareAudience } from './audience';
import {
  type AudienceCountRecord,
  type CountChunk,
  type CountRef,
  commitCountChunk,
  failCount,
  getCount,
  refOf,
  SAMPLE_SIZE,
  startCount,
} from './count-repository';
import { leftOutAmong, leftOutReason } from './eligibility';
import { type AudienceCountMessage, audienceCountJobMessage } from './messages';

/** Candidates a chunk reads at most. */
export const DEFAULT_COUNT_CHUNK = 100;

interface CountState {
  readonly count: AudienceCountRecord;
  readonly audience: Audience;
}

type Counted = Omit<CountChunk, 'next'> & { readonly next: CountState; readonly items: number };

const refOfMessage = (m: AudienceCountMessage): CountRef =>
  m.campaignId !== undefined
    ? { projectId: m.projectId, campaignId: m.campaignId }
    : { projectId: m.projectId, countId: m.countId ?? '' };

export function countChunks(options: ChunkOptions = {}) {
  const limit = options.chunkSize ?? DEFAULT_COUNT_CHUNK;
  return chunkedJob(audienceCountJobMessage, {
    budget: options,
    async load(deps: Deps, m: AudienceCountMessage) {
      const count = await getCount(deps, refOfMessage(m), deps.clock.now(), { consistent: true });
      // Replaced by a newer count, ended, or expired: nothing to do.
      if (!count || count.runId !== m.runId) return undefined;
      if (count.status !== 'queued' && count.status !== 'processing') return undefined;
      return count;
    },
    async start(deps: Deps, count: AudienceCountRecord): Promise<CountState | undefined> {
      let current = count;
      if (current.status === 'queued') {
        if (!(await startCount(deps, current))) {
          const now = await getCount(deps, refOf(current), deps.clock.now(), { consistent: true });
          if (!now || now.runId !== count.runId || now.status !== 'processing') return undefined;
          current = now;
        } else current = { ...current, status: 'processing' };
      }
      const audience = await prepareAudience(deps, current.projectId, campaignOf(current), current.at);
      return { count: current, audience };
    },
    async process(deps: Deps, state: CountState): Promise<Counted> {
      const { count, audience } = state;
      const page = await audiencePage(deps, audience, count.position, limit, { countUnsubscribed: true });
      const leftOut = await leftOutAmong(
        deps,
        count.projectId,
        count.type,
        page.recipients,
        new Date(count.at),
      );
      let suppressed = 0;
      let snoozed = 0;
      const sample = [...count.sample];
      for (const contact of page.recipients) {
        const reason = leftOutReason(contact, leftOut);
        if (reason === 'suppressed') suppressed++;
        else if (reason === 'snoozed') snoozed++;
        else if (sample.length < SAMPLE_SIZE) sample.push({ id: contact.id, email: contact.email });
      }
      const mailed = page.recipients.length - suppressed - snoozed;
      const excluded = { unsubscribed: page.unsubscribed, suppressed, snoozed };
      const next: AudienceCountRecord = {
        ...count,
        position: page.cursor,
        chunk: count.chunk + 1,
        examined: count.examined + page.examined,
        count: count.count + mailed,
        excluded: {
          unsubscribed: count.excluded.unsubscribed + excluded.unsubscribed,
          suppressed: count.excluded.suppressed + excluded.suppressed,
          snoozed: count.excluded.snoozed + excluded.snoozed,
        },
        sample,
      };
      return {
        next: { count: next, audience },
        items: page.examined,
        done: page.done,
        examined: page.examined,
        count: mailed,
        excluded,
        sample,
        at: deps.clock.now().toISOString(),
      };
    },
    checkpoint: (deps: Deps, state: CountState, chunk: Counted) =>
      commitCountChunk(deps, state.count, { ...chunk, next: chunk.next.count.position }),
    continuation: (m: AudienceCountMessage) => ({
      projectId: m.projectId,
      runId: m.runId,
      ...(m.campaignId !== undefined ? { campaignId: m.campaignId } : { countId: m.countId ?? '' }),
    }),
    failure: {
      async record(deps: Deps, count: AudienceCountRecord, failure) {
        await failCount(deps, count, failure, deps.clock.now().toISOString());
      },
      lastAttempt: {
        code: 'AUDIENCE_COUNT_FAILED',
        message: 'The audience count kept failing; start another',
      },
    },
  });
}

/** The audience a count counts, in the shape the fan-out's audience reads. */
const campaignOf = (count: AudienceCountRecord): Audience['campaign'] => ({
  id: count.campaignId ?? count.id,
  type: count.type,
  audienceType: count.audienceType,
  audienceCondition: count.audienceCondition,
  segmentId: count.segmentId,
});
