/**
 * A segment's members for the code that sends to them (campaign fan-out): live members of a
 * dynamic or static segment, a page at a time, oldest contact first (a stable order).
 */
import type { StoreDeps } from '../store/store';
import { memberIdPage } from './repository';

export { getSegmentRecord } from './repository';

export async function segmentMemberPage(
  deps: StoreDeps,
  projectId: string,
  segmentId: string,
  options: { readonly cursor?: string; readonly limit: number },
): Promise<{ contactIds: string[]; cursor: string; hasMore: boolean }> {
  return memberIdPage(deps, projectId, segmentId, options);
}
