/** A DNS zone file for a test file's runtime (`dnsFile`), so that DNS answers are the test's own. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

/**
 * The path of a zone file (see ZoneFileDns) holding `zone`, in a fresh folder removed after the
 * test file. Call it at the top of the file, where the runtime's options are given.
 */
export function useZoneFile(zone: Readonly<Record<string, unknown>> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'sesame-zone-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'zone.json');
  writeFileSync(path, JSON.stringify(zone));
  return path;
}
