/**
 * Route matching as API Gateway HTTP APIs do it, built from the manifest: the method must match;
 * among the routes whose path matches, the most specific wins, comparing segment by segment
 * (a static segment beats a `{param}`, which beats a greedy `{proxy+}`). A request matching no
 * route goes to the manifest's fallback group with route key `$default`.
 */
import type { Manifest } from '../manifest';

type Segment =
  | { readonly kind: 'static'; readonly value: string }
  | { readonly kind: 'param'; readonly name: string }
  | { readonly kind: 'greedy'; readonly name: string };

interface CompiledRoute {
  readonly group: string;
  readonly method: string;
  readonly routeKey: string;
  readonly segments: readonly Segment[];
}

export interface RouteMatch {
  readonly group: string;
  /** `METHOD /path/{param}`, or `$default` for the fallback. */
  readonly routeKey: string;
  /** Decoded; undefined when the route has no parameters (as in API Gateway's event). */
  readonly pathParameters: Record<string, string> | undefined;
}

export type RouteMatcher = (method: string, rawPath: string) => RouteMatch;

const RANK = { static: 2, param: 1, greedy: 0 } as const;

export function compileRoutes(manifest: Pick<Manifest, 'routeGroups' | 'fallbackGroup'>): RouteMatcher {
  if (!manifest.routeGroups.some((g) => g.name === manifest.fallbackGroup)) {
    throw new Error(`The fallback group "${manifest.fallbackGroup}" is not a route group`);
  }
  const routes: CompiledRoute[] = manifest.routeGroups.flatMap((g) =>
    g.routes.map((r) => ({
      group: g.name,
      method: r.method,
      routeKey: `${r.method} ${r.path}`,
      segments: parseTemplate(r.path),
    })),
  );
  return (method, rawPath) => {
    const segments = rawPath.split('/').slice(1);
    let best: { route: CompiledRoute; params: Record<string, string> } | undefined;
    for (const route of routes) {
      if (route.method !== method) continue;
      const params = matchSegments(route.segments, segments);
      if (params && (!best || moreSpecific(route.segments, best.route.segments))) best = { route, params };
    }
    if (!best) return { group: manifest.fallbackGroup, routeKey: '$default', pathParameters: undefined };
    return {
      group: best.route.group,
      routeKey: best.route.routeKey,
      pathParameters: Object.keys(best.params).length > 0 ? best.params : undefined,
    };
  };
}

function parseTemplate(path: string): Segment[] {
  return path
    .split('/')
    .slice(1)
    .map((s): Segment => {
      const m = /^\{([^}]+?)(\+)?\}$/.exec(s);
      if (!m) return { kind: 'static', value: s };
      return m[2] ? { kind: 'greedy', name: m[1]! } : { kind: 'param', name: m[1]! };
    });
}

function matchSegments(
  template: readonly Segment[],
  raw: readonly string[],
): Record<string, string> | undefined {
  const params: Record<string, string> = {};
  for (let i = 0; i < template.length; i++) {
    const t = template[i]!;
    if (t.kind === 'greedy') {
      const rest = raw.slice(i);
      if (rest.length === 0 || rest.every((s) => s === '')) return undefined;
      params[t.name] = decode(rest.join('/'));
      return params;
    }
    const segment = raw[i];
    if (segment === undefined) return undefined;
    if (t.kind === 'static') {
      if (decode(segment) !== t.value) return undefined;
    } else {
      if (segment === '') return undefined;
      params[t.name] = decode(segment);
    }
  }
  return raw.length === template.length ? params : undefined;
}

function moreSpecific(a: readonly Segment[], b: readonly Segment[]): boolean {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const d = RANK[a[i]!.kind] - RANK[b[i]!.kind];
    if (d !== 0) return d > 0;
  }
  return a.length > b.length;
}

/** Percent-decoding that leaves a malformed escape as it is instead of throwing. */
export function decode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch (error) {
    if (error instanceof URIError) return value;
    throw error;
  }
}
