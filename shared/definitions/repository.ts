/**
 * Segments, campaigns and workflows: project-level definitions, each an item `SEGMENT#<id>`,
 * `CAMPAIGN#<id>` or `WORKFLOW#<id>` in the project's partition, with any items of its own below
 * it (`WORKFLOW#<id>#STEP#<stepId>`). Only this module knows those keys. Nothing writes them here
 * yet; the usage reports of fields, events and templates read them.
 */
import type { Item, StoreDeps } from '../store/store';
import { keys } from '../table';

export type DefinitionKind = keyof typeof keys.definitionPrefixes;

export const DEFINITION_KINDS = Object.keys(keys.definitionPrefixes) as DefinitionKind[];

export interface DefinitionItem {
  /** The definition's id (the sort key's first part after the kind's prefix). */
  readonly id: string;
  /** The sort key's further parts, for an item below the definition; [] for the definition's own. */
  readonly path: readonly string[];
  /** The item as stored. */
  readonly item: Item;
}

/** Every item of the project's definitions of one kind, in sort-key order. */
export async function* definitionItems(
  deps: StoreDeps,
  projectId: string,
  kind: DefinitionKind,
): AsyncGenerator<DefinitionItem> {
  const prefix = keys.definitionPrefixes[kind];
  const query = { partition: keys.projectPartition(projectId), sort: { beginsWith: prefix } };
  for await (const item of deps.store.queryAll(query)) {
    const [id = '', ...path] = String(item.sk).slice(prefix.length).split('#');
    yield { id, path, item };
  }
}
