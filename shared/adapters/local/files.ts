/** Small file helpers for the local adapters' data folder: atomic writes and append-only journals. */
import { appendFileSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** Writes a whole file atomically (temp file + rename), so a crash never leaves half a file. */
export function writeFileAtomic(path: string, data: string | Uint8Array, mode = 0o644): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, data, { mode });
  renameSync(tmp, path);
}

/** Reads a file, or undefined when it does not exist. */
export function readFileIfExists(path: string): Buffer | undefined {
  try {
    return readFileSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * An append-only JSON-lines file. Appends are synchronous so that an entry is on disk before the
 * caller's promise resolves (a local process that is killed loses nothing it acknowledged).
 * A torn last line (crash mid-append) is skipped when reading.
 */
export class Journal<T> {
  private appended = 0;

  constructor(readonly path: string) {}

  read(): T[] {
    const text = readFileIfExists(this.path)?.toString('utf8') ?? '';
    const entries: T[] = [];
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      try {
        entries.push(JSON.parse(line) as T);
      } catch (error) {
        // Only a crash mid-append produces this, and only on the last line: that entry never
        // completed, so skipping it is the correct recovery.
        if (!(error instanceof SyntaxError)) throw error;
      }
    }
    return entries;
  }

  append(entry: T): void {
    mkdirSync(dirname(this.path), { recursive: true });
    appendFileSync(this.path, `${JSON.stringify(entry)}\n`);
    this.appended++;
  }

  /** Entries appended since the last `rewrite`. */
  get appendedSinceRewrite(): number {
    return this.appended;
  }

  /** Replaces the journal with `entries` (a compacted snapshot). */
  rewrite(entries: readonly T[]): void {
    writeFileAtomic(this.path, entries.map((e) => `${JSON.stringify(e)}\n`).join(''));
    this.appended = 0;
  }
}
