/**
 * BlobPort for the local runtime: files under `<dataDir>/blobs` (key `a/b` is `a/b.blob`, each
 * segment percent-encoded so that a key can never step outside the folder), or a map in memory.
 * Another bucket's stand-in keeps its objects in another folder (`folder`).
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { BlobPort } from '../../ports';

export class LocalBlobs implements BlobPort {
  private readonly memory = new Map<string, Uint8Array>();
  private readonly folder: string | undefined;

  constructor(options: { dataDir?: string; folder?: string } = {}) {
    this.folder = options.dataDir ? join(options.dataDir, options.folder ?? 'blobs') : undefined;
  }

  async put(key: string, body: Uint8Array, _contentType: string): Promise<void> {
    if (!this.folder) {
      this.memory.set(checkKey(key), Uint8Array.from(body));
      return;
    }
    const path = this.pathOf(key);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, body);
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    if (!this.folder) {
      const body = this.memory.get(checkKey(key));
      return body ? Uint8Array.from(body) : undefined;
    }
    try {
      return new Uint8Array(await readFile(this.pathOf(key)));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    if (!this.folder) {
      this.memory.delete(checkKey(key));
      return;
    }
    await rm(this.pathOf(key), { force: true });
  }

  private pathOf(key: string): string {
    // Percent-encoded segments ('' as '%', which encoding never yields) cannot climb out of the
    // folder; the `.blob` suffix lets key `a` and key `a/b` coexist, as they can in S3.
    const segments = checkKey(key)
      .split('/')
      .map((s) => (s === '' ? '%' : encodeURIComponent(s).replace(/^\.|\.$/g, '%2E')));
    return `${join(this.folder!, ...segments)}.blob`;
  }
}

function checkKey(key: string): string {
  if (key.length === 0 || key.length > 1024) throw new RangeError('Blob keys are 1 to 1024 characters');
  return key;
}
