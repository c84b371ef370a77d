/** Helpers for the tests of the local adapters: a silent logger, temporary folders, a schedule target. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';
import type { LocalLogger } from '../../../shared/adapters/local/log';
import type { ScheduleTarget } from '../../../shared/adapters/local/scheduler';
import type { QueueMessage } from '../../../shared/ports';

/** Drops every line, warnings included: these tests provoke failures on purpose. */
export const silent: LocalLogger = { info: () => {}, warn: () => {}, error: () => {} };

/**
 * A fresh empty folder, removed when the current test has finished (after its `afterEach` hooks,
 * so adapters stopped there are done writing to it). Call it inside a test.
 */
export function tempDir(prefix = 'sesame-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The path of `zone.json` in a fresh folder, holding `content` (JSON unless a string); no file when undefined. */
export function zoneFile(content?: unknown): string {
  const path = join(tempDir('sesame-zones-'), 'zone.json');
  if (content !== undefined)
    writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

/** A schedule target that keeps what it is sent. */
export function recordingTarget() {
  const sent: { queue: string; message: QueueMessage; typeAttribute: boolean | undefined }[] = [];
  const t: ScheduleTarget = {
    send: async (queue, message, options) => {
      sent.push({ queue, message, typeAttribute: options?.typeAttribute });
    },
  };
  return { t, sent };
}
