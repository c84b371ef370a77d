/**
 * The local runtime's data folder (`SESAME_DATA_DIR`, `.sesame/` for `npm start`): where it is,
 * the files the runtime keeps there itself, and the lock that lets one runtime at a time use it.
 *
 * Besides the files below, each local adapter keeps its own state under the folder (the
 * embedded database in `dynamodb/`, the queue journal, schedules, sent mail, uploaded objects,
 * the clock's offset, SES identities); each one names its own file.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** Files of the data folder that the runtime writes itself. */
export const dataFiles = {
  /** The pid of the runtime using the folder (see `lockDataDir`). */
  lock: 'runtime.lock',
  /** The seed project's id and raw keys (shared/local/seed.ts). */
  seed: 'seed.json',
  /** The local key of signed links (shared/local/seed.ts). */
  linkSigningSecret: 'link-signing-secret',
} as const;

/** The path of one of the runtime's own files in `dataDir`. */
export const dataPath = (dataDir: string, file: keyof typeof dataFiles): string =>
  join(dataDir, dataFiles[file]);

/** The absolute path of the data folder, created if missing; undefined (in memory) stays undefined. */
export function openDataDir(dataDir: string | undefined): string | undefined {
  if (!dataDir) return undefined;
  const absolute = resolve(dataDir);
  mkdirSync(absolute, { recursive: true });
  return absolute;
}

export interface DataDirLock {
  /**
   * The previous runtime on the folder did not stop: its lock was still there, held by a process
   * that no longer runs (the table's indexes then need a rebuild: see shared/local/dynamo.ts).
   */
  readonly unclean: boolean;
  release(): Promise<void>;
}

/** Folders locked by runtimes of this process (a lock file holding our own pid is no proof). */
const lockedDirs = new Set<string>();

/**
 * One runtime per data folder: the embedded database cannot be opened twice (a second opener
 * crashes the process), so a second runtime is refused with the reason. The lock file holds the
 * owner's pid; a lock left by a process that no longer runs is taken over, and marks the start as
 * unclean.
 */
export function lockDataDir(dataDir: string): DataDirLock {
  const file = dataPath(dataDir, 'lock');
  if (lockedDirs.has(dataDir))
    throw new Error(`The data folder ${dataDir} is in use by another local runtime`);
  let unclean = false;
  for (;;) {
    try {
      writeFileSync(file, String(process.pid), { flag: 'wx' });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number(readFileSync(file, 'utf8'));
      if (owner !== process.pid && isRunning(owner)) {
        throw new Error(`The data folder ${dataDir} is in use by process ${owner} (another npm start?)`);
      }
      // A lock whose owner no longer runs: that process died without stopping.
      unclean = true;
      rmSync(file, { force: true });
    }
  }
  lockedDirs.add(dataDir);
  return {
    unclean,
    release: async () => {
      lockedDirs.delete(dataDir);
      rmSync(file, { force: true });
    },
  };
}

function isRunning(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
