/**
 * The worker's job list is derived from the domains' job modules (shared/jobs/catalog.ts). These
 * checks keep it whole: every `shared/<noun>/jobs.ts` is in it, no two jobs share a type, and
 * every job that code enqueues (or schedules) is registered with the very schema it is enqueued
 * with, so the worker accepts what `enqueue` let through.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { jobs as workerJobs, normalizers as workerNormalizers } from '../../../functions/queues/jobs';
import { allJobs, allNormalizers, domainJobs } from '../../../shared/jobs/catalog';
import type { JobMessageDef } from '../../../shared/jobs/registry';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const rel = (file: string) => relative(root, file).split('\\').join('/');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

const sources = [...sourceFiles(join(root, 'shared')), ...sourceFiles(join(root, 'functions'))];

/** `import { a, b as c } from './x'` of a file: local name -> resolved module file. */
function importsOf(file: string, text: string): Map<string, { module: string; name: string }> {
  const out = new Map<string, { module: string; name: string }>();
  for (const m of text.matchAll(/import\s+(?:type\s+)?\{([^}]*)\}\s+from\s+'([^']+)'/g)) {
    if (!m[2]!.startsWith('.')) continue;
    const module = resolve(dirname(file), `${m[2]}.ts`);
    for (const part of m[1]!.split(',')) {
      const [name, alias] = part
        .replace(/^\s*type\s+/, '')
        .split(/\s+as\s+/)
        .map((s) => s.trim());
      if (name) out.set(alias ?? name, { module, name });
    }
  }
  return out;
}

/**
 * Every `enqueue(deps, job, ...)`, `scheduleJob(deps, job, ...)` and `jobMessage(job, ...)` call,
 * and every `chunkedJob(job, ...)`: a chunked job's continuations are enqueued with that message
 * (by `runChunked`, shared/jobs/chunked.ts).
 */
function jobArguments(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/\b(?:enqueue|scheduleJob)\(\s*[\w.]+\s*,\s*([A-Za-z_$][\w$]*)/g))
    found.push(m[1]!);
  for (const m of text.matchAll(/\b(?:jobMessage|chunkedJob)\(\s*([A-Za-z_$][\w$]*)\s*,/g)) found.push(m[1]!);
  return found;
}

describe('the job catalog', () => {
  it('has every domain job module (shared/<noun>/jobs.ts)', async () => {
    const files = readdirSync(join(root, 'shared'))
      .map((noun) => join(root, 'shared', noun, 'jobs.ts'))
      .filter((file) => existsSync(file));
    expect(files.length).toBeGreaterThan(0);
    const listed = Object.values(domainJobs);
    for (const file of files) {
      const mod = (await import(pathToFileURL(file).href)) as { jobs?: unknown };
      expect(Array.isArray(mod.jobs), `${rel(file)} exports its jobs`).toBe(true);
      expect(
        listed.some((d) => d.jobs === mod.jobs),
        `${rel(file)} is in domainJobs (shared/jobs/catalog.ts)`,
      ).toBe(true);
    }
    expect(listed).toHaveLength(files.length);
  });

  it('gives every job its own type', () => {
    const types = allJobs.map((j) => j.type);
    expect(new Set(types).size).toBe(types.length);
  });

  it('is what the jobs worker runs', () => {
    expect(workerJobs).toBe(allJobs);
    expect(workerNormalizers).toBe(allNormalizers);
    expect(allNormalizers.length).toBeGreaterThan(0);
  });

  it('registers every job that code enqueues or schedules, with the schema it is enqueued with', async () => {
    const checked: string[] = [];
    // The generic plumbing enqueues whatever job it is given.
    const plumbing = new Set(['shared/jobs/registry.ts', 'shared/jobs/chunked.ts']);
    for (const file of sources) {
      if (plumbing.has(rel(file))) continue;
      const text = readFileSync(file, 'utf8');
      const args = jobArguments(text);
      if (args.length === 0) continue;
      const imports = importsOf(file, text);
      for (const arg of args) {
        const from = imports.get(arg) ?? { module: file, name: arg };
        const mod = (await import(pathToFileURL(from.module).href)) as Record<string, unknown>;
        const job = mod[from.name] as JobMessageDef | undefined;
        const where = `${rel(file)}: ${arg}`;
        expect(job, `${where} is exported by ${rel(from.module)}`).toBeDefined();
        const registered = allJobs.find((j) => j.type === job!.type);
        expect(registered, `${where} (${job!.type}) is a registered job`).toBeDefined();
        expect(registered!.schema, `${where} is enqueued with the registered schema`).toBe(job!.schema);
        checked.push(job!.type);
      }
    }
    // The scan does find the enqueueing code (the chunked jobs, whose continuations are enqueued,
    // the starts of the others, and the upload deadline's schedule).
    for (const type of [
      'import.run',
      'bulk.run',
      'events.deleteByName',
      'contact.purge',
      'field.strip',
      'import.deadline',
    ])
      expect(checked).toContain(type);
  });

  it('leaves no job message sent around enqueue', () => {
    // Not job messages: the local stand-in of S3's notification, and the ports themselves.
    const plumbing = new Set([
      'shared/jobs/registry.ts',
      'shared/local/direct-upload.ts',
      'shared/ports/index.ts',
      'shared/adapters/aws/scheduler.ts',
      'shared/adapters/local/scheduler.ts',
    ]);
    const raw = sources
      .filter((file) => /\bqueue\.send\(|\.scheduleAt\(/.test(readFileSync(file, 'utf8')))
      .map(rel)
      .filter((file) => !plumbing.has(file));
    expect(raw).toEqual([]);
  });
});
