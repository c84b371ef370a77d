/**
 * The local stand-in of the inbound bucket: what `POST /_local/inbound` stores is what the jobs
 * worker reads, it survives a restart, it lives apart from the upload bucket's objects, and a key
 * never reaches outside its folder.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LocalBlobs } from '../../../shared/adapters/local/blobs';
import { LocalInboundMail } from '../../../shared/adapters/local/inbound-mail';
import { tempDir } from './helpers';

const raw = new TextEncoder().encode('From: ann@example.org\r\nSubject: Hi\r\n\r\nHello\r\n');

describe('LocalInboundMail', () => {
  it('answers what was stored, and undefined for a key never stored', async () => {
    const mail = new LocalInboundMail();
    await mail.put('inbound/m1', raw);
    expect(await mail.get('inbound/m1')).toEqual(raw);
    expect(await mail.get('inbound/m2')).toBeUndefined();
  });

  it('keeps messages in its own folder of the data folder, for the next start', async () => {
    const dir = tempDir('sesame-inbound-');
    await new LocalInboundMail({ dataDir: dir }).put('inbound/m1', raw);
    expect(await new LocalInboundMail({ dataDir: dir }).get('inbound/m1')).toEqual(raw);
    expect(readdirSync(dir)).toEqual(['inbound-mail']);
    // Not the upload bucket's objects.
    expect(await new LocalBlobs({ dataDir: dir }).get('inbound/m1')).toBeUndefined();
  });

  it('never writes outside its folder', async () => {
    const dir = tempDir('sesame-inbound-');
    const mail = new LocalInboundMail({ dataDir: dir });
    await mail.put('inbound/../../escape', raw);
    expect(existsSync(join(dir, '..', 'escape.blob'))).toBe(false);
    expect(await mail.get('inbound/../../escape')).toEqual(raw);
    expect(readdirSync(dir)).toEqual(['inbound-mail']);
  });
});
