/**
 * Loads the handler of every manifest entry the way the local runtime runs them: each module
 * named in the manifest exports `createHandler(deps)`, imported by path at start, so a new
 * manifest entry needs no change here. Tests replace entries with factories of their own.
 *
 * Each factory is given the deps scoped to what its manifest entry declares it `uses`
 * (`scopeDeps`, shared/http/ports.ts), as the function's role limits it on AWS: a port it does
 * not declare is refused locally too, whether the module or a test's factory uses it. (The
 * handler modules scope their deps themselves as well, with `declaredDeps`, so that the same
 * declaration holds on AWS; scoping twice to one declaration changes nothing.)
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { scopeDeps } from '../http/ports';
import { type FunctionKind, functionUses, type Manifest } from '../manifest';
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

/** Where handlers of each kind of function go. */
const handlerKind: Readonly<Record<FunctionKind, HandlerKind>> = {
  http: 'http',
  queue: 'queues',
  schedule: 'schedules',
  authorizer: 'authorizers',
};

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
  manifest: Manifest,
  deps: Deps,
  options: { overrides?: HandlerOverrides; allowMissing?: boolean; root?: string } = {},
): Promise<LoadedHandlers> {
  const root = options.root ?? repoRoot;
  const loaded: LoadedHandlers = { http: {}, queues: {}, schedules: {}, authorizers: {}, missing: [] };
  const missing: { kind: HandlerKind; name: string; path: string }[] = [];
  const problems: string[] = [];
  for (const fn of functionUses(manifest)) {
    const entry = { kind: handlerKind[fn.kind], name: fn.name, path: fn.handler };
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
    const handler = factory(scopeDeps(deps, fn.uses, `${fn.kind} function ${fn.name}`));
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
