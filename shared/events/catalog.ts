/**
 * Every event listener of the service, derived from the domains' listener modules as the jobs
 * catalog is from their job modules: each `shared/<noun>/listeners.ts` exports its `listeners`,
 * and a domain with listeners adds its module to `domainListeners` below, nothing else.
 * `test/unit/events/emit.test.ts` fails when a `listeners.ts` is missing here.
 *
 * The workflows' listener receives every name (`*`) but `accepts` only the names some workflow of
 * the project starts on or waits for (a cached read): any other event costs what it did before the
 * seam existed (one conditional write), with no dispatch message. The segments' listener does the
 * same for the names a dynamic segment's condition reads (`segments/listeners.ts`).
 */
import * as segments from '../segments/listeners';
import * as workflows from '../workflows/listeners';
import { type EventListener, ListenerRegistry } from './registry';

/** What a domain's `listeners.ts` exports. */
export interface DomainListeners {
  readonly listeners: readonly EventListener[];
}

/** The domains' listener modules, by noun. */
export const domainListeners = { segments, workflows } satisfies Readonly<Record<string, DomainListeners>>;

let built: ListenerRegistry | undefined;

/**
 * The registry of every domain's listeners. Built on first use rather than at load: a listener
 * module reaches domain code that emits events, which imports `emit`, which imports this module,
 * so the modules may still be loading when this one is.
 */
export function allListeners(): ListenerRegistry {
  const modules: readonly DomainListeners[] = Object.values(domainListeners);
  built ??= new ListenerRegistry(modules.flatMap((d) => d.listeners));
  return built;
}
