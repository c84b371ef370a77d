/**
 * Loads the handler of every manifest entry the way the local runtime runs them: each module
 * named in the manifest exports `createHandler(deps)`, imported by path at start, so a new
 * manifest entry needs no change here. Tests replace entries with factories of their own.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Manifest } from '../manifest';
import type { Deps } from '../ports';

/** What a handler module's `createHandler(deps)` returns: a Lambda-style async function. */
export type LambdaHandler = (event: never, context: never) => Promise<unknown>;
export type HandlerFactory = (deps: Deps) => unknown;

export interface HandlerOverrides {
  /** Factories by route group name. */
  readonly http?: Readonly<Record<string, HandlerFactory>>;
  /** Factories by queue name. */
  readonly queues?: Readonly<Record<string, HandlerFactory>>;
  /** Factories by schedule name. */
  readonly schedules?: Readonly<Record<string, HandlerFactory>>;
  /** Factories by direct-upload name (their authorizers). */
  readonly authorizers?: Readonly<Record<string, HandlerFactory>>;
}

export type HandlerKind = 'http' | 'queues' | 'schedules' | 'authorizers';

export interface LoadedHandlers {
  readonly http: Record<string, (event: unknown, context: unknown) => Promise<unknown>>;
  readonly queues: Record<string, (event: unknown, context: unknown) => Promise<unknown>>;
  readonly schedules: Record<string, (event: unknown, context: unknown) => Promise<unknown>>;
  /** Authorizers of the manifest's direct uploads, by upload name. */
  readonly authorizers: Record<string, (event: unknown, context: unknown) => Promise<unknown>>;
  /** Entries whose module file does not exist (only with `allowMissing`). */
  readonly missing: readonly { kind: HandlerKind; name: string; path: string }[];
}

/** The repository root (handler paths in the manifest are relative to it). */
export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

export async function loadHandlers(
  manifest: Pick<Manifest, 'routeGroups' | 'queues' | 'schedules' | 'directUploads'>,
  deps: Deps,
  options: { overrides?: HandlerOverrides; allowMissing?: boolean; root?: string } = {},
): Promise<LoadedHandlers> {
  const root = options.root ?? repoRoot;
  const loaded: LoadedHandlers = { http: {}, queues: {}, schedules: {}, authorizers: {}, missing: [] };
  const missing: { kind: HandlerKind; name: string; path: string }[] = [];
  const problems: string[] = [];
  const entries: { kind: HandlerKind; name: string; path: string }[] = [
    ...manifest.routeGroups.map((g) => ({ kind: 'http' as const, name: g.name, path: g.handler })),
    ...manifest.queues.map((q) => ({ kind: 'queues' as const, name: q.name, path: q.handler })),
    ...manifest.schedules.map((s) => ({ kind: 'schedules' as const, name: s.name, path: s.handler })),
    ...(manifest.directUploads ?? []).map((u) => ({
      kind: 'authorizers' as const,
      name: u.name,
      path: u.authorizer,
    })),
  ];
  for (const entry of entries) {
    let factory = options.overrides?.[entry.kind]?.[entry.name];
    if (!factory) {
      const file = resolve(root, entry.path);
      if (!existsSync(file)) {
        missing.push(entry);
        continue;
      }
      try {
        factory = await importFactory(file);
      } catch (error) {
        problems.push(`${entry.path}: ${(error as Error).message}`);
        continue;
      }
    }
    const handler = factory(deps);
    if (typeof handler !== 'function') {
      problems.push(`${entry.path}: createHandler(deps) returned ${typeof handler}, not a function`);
      continue;
    }
    loaded[entry.kind][entry.name] = handler as (event: unknown, context: unknown) => Promise<unknown>;
  }
  if (missing.length > 0 && !options.allowMissing) {
    problems.push(...missing.map((m) => `${m.path}: file not found (named by ${m.kind} entry "${m.name}")`));
  }
  if (problems.length > 0) {
    throw new Error(`Cannot load the handlers named in the manifest:\n  ${problems.join('\n  ')}`);
  }
  return { ...loaded, missing };
}

async function importFactory(file: string): Promise<HandlerFactory> {
  let mod: { createHandler?: unknown };
  try {
    mod = (await import(pathToFileURL(file).href)) as { createHandler?: unknown };
  } catch (error) {
    // A module that builds its AWS deps at import time fails here without the AWS environment.
    throw new Error(
      `import failed (${(error as Error).message}); a handler module must not need the AWS environment at import time`,
      { cause: error },
    );
  }
  if (typeof mod.createHandler !== 'function') throw new Error('does not export createHandler(deps)');
  return mod.createHandler as HandlerFactory;
}
