/** The local image store: what it answers, what it keeps across restarts, and where it writes. */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LocalImages, localImagePath } from '../../../shared/adapters/local/images';

const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
const key = 'images/p-1/i-1.png';
const dirs: string[] = [];
const dataDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'sesame-images-'));
  dirs.push(dir);
  return dir;
};

afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('LocalImages', () => {
  it('answers the URL under the runtime base URL, read at upload time', async () => {
    let base: string | undefined;
    const images = new LocalImages({ baseUrl: () => base });
    await expect(images.put(key, png, 'image/png')).rejects.toThrow(/no base URL yet/);
    base = 'http://127.0.0.1:3000/';
    expect(await images.put(key, png, 'image/png')).toEqual({
      url: 'http://127.0.0.1:3000/_local/images/p-1/i-1.png',
    });
    expect(localImagePath(key)).toBe('/_local/images/p-1/i-1.png');
    expect(await images.get(key)).toEqual({ body: png, contentType: 'image/png' });
    expect(await images.get('images/p-1/other.png')).toBeUndefined();
  });

  it('keeps images and their types in the data folder, for the next start', async () => {
    const dir = dataDir();
    const baseUrl = () => 'http://localhost:3000';
    await new LocalImages({ dataDir: dir, baseUrl }).put(key, png, 'image/webp');
    const restarted = new LocalImages({ dataDir: dir, baseUrl });
    expect(await restarted.get(key)).toEqual({ body: png, contentType: 'image/webp' });
    expect(readdirSync(join(dir, 'images', 'images', 'p-1')).sort()).toEqual([
      'i-1.png.body',
      'i-1.png.type',
    ]);
  });

  it('never writes outside its folder, whatever the key', async () => {
    const dir = dataDir();
    const images = new LocalImages({ dataDir: dir, baseUrl: () => 'http://localhost' });
    await images.put('../../escape.png', png, 'image/png');
    expect(readdirSync(dir)).toEqual(['images']);
    expect(await images.get('../../escape.png')).toEqual({ body: png, contentType: 'image/png' });
  });
});
