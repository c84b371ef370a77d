/**
 * Rule 5 of custom data: the first type seen for a key fixes it for the project. One item per
 * field path (`FIELD#<path>`), created with a conditional put; later values never change it.
 * Known paths are remembered per instance for a minute so steady traffic costs nothing; past
 * that, the paths not remembered are read first (a consistent batched read: 1 RCU a path) and
 * only those without a type are written, rather than a conditional put that fails (1 WCU) for
 * every path the project already has.
 */
import type { Deps } from '../ports';
import type { StoreDeps } from '../store/store';
import { type DataValue, inferType } from './data';
import { putFieldTypeIfNew, recordedFieldPaths } from './repository';

type FieldDeps = StoreDeps & Pick<Deps, 'clock'>;

const KNOWN_TTL_MS = 60_000;
/** Paths known per store (so a test's store of its own starts with nothing known). */
const known = new WeakMap<object, Map<string, number>>();

/** Records the inferred type of every path not seen before in the project. */
export async function recordFieldTypes(
  deps: FieldDeps,
  projectId: string,
  setPaths: readonly (readonly [string, DataValue])[],
): Promise<void> {
  let cache = known.get(deps.store);
  if (!cache) {
    cache = new Map();
    known.set(deps.store, cache);
  }
  const now = deps.clock.now();
  const cacheKey = (path: string) => `${projectId}\u0000${path}`;
  const unknown = setPaths.filter(([path]) => {
    const seen = cache.get(cacheKey(path));
    return seen === undefined || now.getTime() - seen >= KNOWN_TTL_MS;
  });
  if (unknown.length === 0) return;
  const recorded = await recordedFieldPaths(
    deps,
    projectId,
    unknown.map(([path]) => path),
  );
  for (const [path, value] of unknown) {
    if (!recorded.has(path)) {
      await putFieldTypeIfNew(deps, projectId, {
        path,
        type: inferType(value),
        createdAt: now.toISOString(),
      });
    }
    if (cache.size > 10_000) cache.clear();
    cache.set(cacheKey(path), now.getTime());
  }
}

/** Forgets cached paths (after a field is deleted, its next value infers a type anew). */
export function forgetFieldTypes(deps: StoreDeps, projectId: string, pathPrefix: string) {
  const cache = known.get(deps.store);
  if (!cache) return;
  for (const key of cache.keys()) {
    const [pid, path] = key.split('\u0000');
    if (pid === projectId && (path === pathPrefix || path?.startsWith(`${pathPrefix}.`))) cache.delete(key);
  }
}
