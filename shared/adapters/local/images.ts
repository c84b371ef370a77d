/**
 * ImagePort for the local runtime: the images are kept under `<dataDir>/images` (or in memory)
 * and the runtime's gateway serves each one at `<base URL>/_local/<key>` (`GET
 * /_local/images/<projectId>/<id>.<ext>`), with the content type it was stored with and no key
 * needed, as CloudFront serves them on AWS.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { ImagePort } from '../../ports';

/** A stored image, as the gateway serves it. */
export interface LocalImage {
  readonly body: Uint8Array;
  readonly contentType: string;
}

/** The path under the runtime's base URL where `key` is served. */
export const localImagePath = (key: string) => `/_local/${key.split('/').map(encodeURIComponent).join('/')}`;

export interface LocalImagesOptions {
  /** Folder to keep the images in (its `images` subfolder); in memory when undefined. */
  readonly dataDir?: string;
  /**
   * The runtime's base URL, read at each upload: it is only known once the gateway listens
   * (the local `config.publicBaseUrl`).
   */
  readonly baseUrl: () => string | undefined;
}

export class LocalImages implements ImagePort {
  private readonly memory = new Map<string, LocalImage>();
  private readonly folder: string | undefined;
  private readonly baseUrl: () => string | undefined;

  constructor(options: LocalImagesOptions) {
    this.folder = options.dataDir ? join(options.dataDir, 'images') : undefined;
    this.baseUrl = options.baseUrl;
  }

  async put(key: string, body: Uint8Array, contentType: string): Promise<{ url: string }> {
    const base = this.baseUrl();
    if (!base) throw new Error('The local runtime has no base URL yet: images are served once it listens');
    if (!this.folder) {
      this.memory.set(checkKey(key), { body: Uint8Array.from(body), contentType });
    } else {
      const path = this.pathOf(key);
      await mkdir(dirname(path), { recursive: true });
      // The type first and the bytes last, each renamed into place: an image is served only once
      // both are complete.
      await writeAtomic(`${path}.type`, contentType);
      await writeAtomic(`${path}.body`, body);
    }
    return { url: `${base.replace(/\/+$/, '')}${localImagePath(key)}` };
  }

  /** The image stored under `key`, or undefined. */
  async get(key: string): Promise<LocalImage | undefined> {
    if (!this.folder) {
      const image = this.memory.get(checkKey(key));
      return image ? { body: Uint8Array.from(image.body), contentType: image.contentType } : undefined;
    }
    const path = this.pathOf(key);
    try {
      const body = new Uint8Array(await readFile(`${path}.body`));
      const contentType = (await readFile(`${path}.type`, 'utf8')).trim();
      return { body, contentType };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  private pathOf(key: string): string {
    // As LocalBlobs does: percent-encoded segments ('' as '%', which encoding never yields, and
    // leading or trailing dots escaped) cannot climb out of the folder.
    const segments = checkKey(key)
      .split('/')
      .map((s) => (s === '' ? '%' : encodeURIComponent(s).replace(/^\.|\.$/g, '%2E')));
    return join(this.folder!, ...segments);
  }
}

async function writeAtomic(path: string, data: string | Uint8Array): Promise<void> {
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, data);
  await rename(tmp, path);
}

function checkKey(key: string): string {
  if (key.length === 0 || key.length > 1024) throw new RangeError('Image keys are 1 to 1024 characters');
  return key;
}
