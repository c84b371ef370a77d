import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { toAppConfig } from '../../shared/config/env';
import { authUses, functionUses, manifest, pathParamNames, routeKey } from '../../shared/manifest';
import type { Deps } from '../../shared/ports';

const root = join(import.meta.dirname, '..', '..');

function handlerModules(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...handlerModules(path));
    else if (name === 'index.ts') out.push(relative(root, path));
  }
  return out;
}

const named = [
  ...manifest.routeGroups.map((g) => g.handler),
  ...manifest.queues.map((q) => q.handler),
  ...manifest.schedules.map((s) => s.handler),
  ...(manifest.directUploads ?? []).map((u) => u.authorizer),
];

describe('manifest', () => {
  it('names every handler module under functions/, and only existing ones', () => {
    const onDisk = handlerModules(join(root, 'functions')).sort();
    expect(onDisk).toEqual([...new Set(named)].sort());
    for (const path of named) expect(existsSync(join(root, path)), path).toBe(true);
  });

  it('puts each entry point under the folder of its trigger', () => {
    for (const g of manifest.routeGroups) expect(g.handler).toMatch(/^functions\/http\/[\w-]+\/index\.ts$/);
    for (const q of manifest.queues) expect(q.handler).toMatch(/^functions\/queues\/[\w-]+\/index\.ts$/);
    for (const s of manifest.schedules)
      expect(s.handler).toMatch(/^functions\/schedules\/[\w-]+\/index\.ts$/);
    for (const u of manifest.directUploads ?? [])
      expect(u.authorizer).toMatch(/^functions\/authorizers\/[\w-]+\/index\.ts$/);
  });

  it('has unique names and unique routes', () => {
    const names = [...manifest.routeGroups, ...manifest.queues, ...manifest.schedules].map((e) => e.name);
    expect(new Set(names).size).toBe(names.length);
    const routes = [
      ...manifest.routeGroups.flatMap((g) => g.routes.map(routeKey)),
      ...(manifest.directUploads ?? []).map(routeKey),
    ];
    expect(new Set(routes).size).toBe(routes.length);
    expect(manifest.routeGroups.map((g) => g.name)).toContain(manifest.fallbackGroup);
  });

  it('exports createHandler and handler from every module', async () => {
    for (const path of named) {
      const mod = (await import(join(root, path))) as Record<string, unknown>;
      expect(typeof mod.createHandler, path).toBe('function');
      expect(typeof mod.handler, path).toBe('function');
    }
  });

  it('declares, for every route group, what authenticating its routes uses', () => {
    for (const group of manifest.routeGroups) {
      const needed = new Set(group.routes.flatMap((r) => authUses[r.auth ?? 'secret']));
      const missing = [...needed].filter((use) => !(group.uses ?? []).includes(use));
      expect(missing, group.name).toEqual([]);
    }
  });

  it('lists every function with its declared uses, each use once', () => {
    const all = functionUses(manifest);
    expect(all.map((f) => f.handler).sort()).toEqual([...named].sort());
    for (const f of all) expect(new Set(f.uses).size, `${f.kind} ${f.name}`).toBe(f.uses.length);
  });

  it('builds every route group: routes as the manifest has them, each path parameter parsed by a schema', async () => {
    // httpGroup refuses, at build time, a route the manifest does not name, an implementation
    // open where the manifest asks for a caller (or the other way round), and a `{param}` route
    // without a schema parsing that parameter.
    expect(pathParamNames('/contacts/fields/{field}/values')).toEqual(['field']);
    expect(pathParamNames('/uploads/{proxy+}')).toEqual(['proxy']);
    const deps = {
      clock: { now: () => new Date(0) },
      ids: { uuid: () => 'id' },
      config: toAppConfig({ TABLE_NAME: 't', RATE_LIMIT_PER_MINUTE: 1000, IDEMPOTENCY_TTL_HOURS: 24 }),
    } as unknown as Deps;
    for (const group of manifest.routeGroups) {
      const mod = (await import(join(root, group.handler))) as { createHandler: (deps: Deps) => unknown };
      expect(() => mod.createHandler(deps), group.name).not.toThrow();
    }
  });
});
