/**
 * The room a campaign send needs under the monthly cap, from counters: a module of its own so that
 * the campaign routes check it without the audience evaluation of the fan-out (`audience.ts`).
 */
import { readContactStats } from '../contacts/stats';
import { getSegmentRecord } from '../segments/members';
import type { StoreDeps } from '../store/store';
import type { CampaignRecord } from './repository';

/**
 * The room a campaign needs under the monthly cap before it starts, from counters (a read or two,
 * never a scan): an ALL audience is the project's contacts (its subscribed ones unless the
 * campaign is TRANSACTIONAL); a SEGMENT audience the segment's member count, which counts
 * unsubscribed members too, so no more than the subscribed contacts unless TRANSACTIONAL. Both are
 * upper bounds (suppressed addresses, for one, are skipped without a send). A FILTERED audience's
 * size is only known as the fan-out evaluates it, so it needs room for one message (none when the
 * project has no contact it could reach); its fan-out stops at the cap.
 */
export async function roomNeededFor(
  deps: StoreDeps,
  projectId: string,
  campaign: Pick<CampaignRecord, 'type' | 'audienceType' | 'segmentId'>,
): Promise<number> {
  const stats = await readContactStats(deps, projectId);
  const reachable = campaign.type === 'TRANSACTIONAL' ? stats.total : stats.subscribed;
  switch (campaign.audienceType) {
    case 'ALL':
      return reachable;
    case 'SEGMENT': {
      const segment = campaign.segmentId
        ? await getSegmentRecord(deps, projectId, campaign.segmentId)
        : undefined;
      return Math.min(segment?.memberCount ?? 0, reachable);
    }
    case 'FILTERED':
      return Math.min(1, reachable);
  }
}
