/**
 * Counts DynamoDB request units for everything a DocumentClient sends (in the benchmarks, the
 * client beneath the local runtime's store: `runtime.dynamo.db`), as on-demand DynamoDB bills them.
 *
 * Reads (GetItem, BatchGetItem, Query, Scan) come from the engine's own ConsumedCapacity, except
 * that a Query or a Scan page is billed at least 0.5 RCU (1 when consistent) as DynamoDB bills an
 * empty one, where the engine reports 0 (`readUnits`).
 *
 * Writes are charged here, per item written, because dynalite reports the table's units only
 * (also with `ReturnConsumedCapacity: 'INDEXES'`, which it accepts but answers without index
 * units). For every PutItem, UpdateItem, DeleteItem and each request of a BatchWriteItem the meter
 * reads the item before the write and, for an update, after it (with a consistent GetItem or
 * BatchGetItem of its own that it does not charge), then applies `chargeWrite`:
 *
 * - table: 1 WCU per started KB of the larger of the item before and after (1 for a missing item);
 * - each global secondary index, by whether the item is in it (carries both its key attributes)
 *   before and after the write: enters it, 1 WCU per KB of the new entry (put); leaves it, 1 per KB
 *   of the old entry (delete); stays with the same index key but a projected attribute changed, 1
 *   per KB of the larger entry (update); stays with another index key, a delete plus a put (move);
 *   in it before and after and nothing projected changed, or in it neither time, 0. An entry of an
 *   index that projects ALL is the whole item; of a KEYS_ONLY index, the table's and the index's
 *   keys (so only entering, leaving and moving write it);
 * - a write whose condition fails: 1 WCU per KB of the existing item (1 when there is none), no
 *   index units (`chargeFailedWrite`).
 *
 * Item sizes follow DynamoDB's rules (`itemBytes`). The item read before a write may be changed by
 * a concurrent writer in between; the benchmarks run one call at a time, so that does not happen
 * beyond what jobs run beside the call.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { BatchGetCommand, type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { table } from '../shared/table';

export type Item = Record<string, unknown>;

export interface Units {
  read: number;
  write: number;
}

/** One index entry a write puts, updates, deletes or moves, and its units. */
export interface IndexWrite {
  readonly index: string;
  readonly op: 'put' | 'update' | 'delete' | 'move';
  readonly units: number;
}

export interface WriteCharge {
  /** The table's units. */
  readonly table: number;
  readonly indexes: readonly IndexWrite[];
}

/** One item write the meter saw. */
export interface WriteRecord extends WriteCharge {
  readonly command: 'Put' | 'Update' | 'Delete' | 'BatchPut' | 'BatchDelete';
  /** What was written, named from its key (`entityOf`). */
  readonly entity: string;
  /** The condition failed: `table` is the failed write's units, `indexes` is empty. */
  readonly failed: boolean;
  /** Label of the phase the write happened in (see `meterCapacity`'s `phase`). */
  readonly phase: string;
  /** table + indexes. */
  readonly units: number;
}

/** DynamoDB's size of an attribute value, in bytes. */
function valueBytes(value: unknown): number {
  if (value === null || value === undefined || typeof value === 'boolean') return 1;
  if (typeof value === 'string') return Buffer.byteLength(value);
  if (typeof value === 'number' || typeof value === 'bigint') {
    const digits = String(value)
      .replace(/^-/, '')
      .replace(/e.*$/i, '')
      .replace('.', '')
      .replace(/^0+/, '')
      .replace(/0+$/, '');
    return Math.ceil(Math.max(1, digits.length) / 2) + 1;
  }
  if (value instanceof Uint8Array) return value.byteLength;
  if (value instanceof Set) {
    let sum = 0;
    for (const v of value) sum += valueBytes(v);
    return sum;
  }
  if (Array.isArray(value)) return 3 + value.reduce((sum: number, v) => sum + 1 + valueBytes(v), 0);
  if (typeof value === 'object') {
    let sum = 3;
    for (const [name, v] of Object.entries(value as Item)) {
      if (v === undefined) continue;
      sum += 1 + Buffer.byteLength(name) + valueBytes(v);
    }
    return sum;
  }
  return Buffer.byteLength(String(value));
}

/** DynamoDB's size of an item: attribute names plus values. */
export function itemBytes(item: Item): number {
  let sum = 0;
  for (const [name, value] of Object.entries(item)) {
    if (value === undefined) continue;
    sum += Buffer.byteLength(name) + valueBytes(value);
  }
  return sum;
}

/** Write units of an item: one per started KB, at least one (also for no item). */
export function writeUnitsOf(item: Item | undefined): number {
  return item ? Math.max(1, Math.ceil(itemBytes(item) / 1024)) : 1;
}

export interface IndexKeys {
  readonly name: string;
  readonly partitionKey: string;
  readonly sortKey: string;
  /** ALL when absent. */
  readonly projection?: 'ALL' | 'KEYS_ONLY';
}

/** The index's entry for `item`: the item, or its table and index keys for a KEYS_ONLY index. */
function entryOf(item: Item, index: IndexKeys): Item {
  if (index.projection !== 'KEYS_ONLY') return item;
  const names = [table.partitionKey, table.sortKey, index.partitionKey, index.sortKey];
  return Object.fromEntries(names.map((n) => [n, item[n]]));
}

function inIndex(item: Item | undefined, index: IndexKeys): boolean {
  return item !== undefined && item[index.partitionKey] !== undefined && item[index.sortKey] !== undefined;
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

function canonical(value: unknown): unknown {
  if (value instanceof Set) return { $set: [...value].map(canonical).sort() };
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object' && !(value instanceof Uint8Array))
    return Object.fromEntries(
      Object.entries(value as Item)
        .filter(([, v]) => v !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([k, v]) => [k, canonical(v)]),
    );
  return value;
}

/**
 * The units of a successful write that turned `before` into `after` (undefined: no item).
 */
export function chargeWrite(
  before: Item | undefined,
  after: Item | undefined,
  indexes: readonly IndexKeys[] = table.indexes,
): WriteCharge {
  const tableUnits = Math.max(writeUnitsOf(before), writeUnitsOf(after));
  const writes: IndexWrite[] = [];
  for (const index of indexes) {
    const was = inIndex(before, index);
    const is = inIndex(after, index);
    if (!was && is)
      writes.push({ index: index.name, op: 'put', units: writeUnitsOf(entryOf(after as Item, index)) });
    else if (was && !is)
      writes.push({ index: index.name, op: 'delete', units: writeUnitsOf(entryOf(before as Item, index)) });
    else if (was && is) {
      const b = entryOf(before as Item, index);
      const a = entryOf(after as Item, index);
      if (b[index.partitionKey] !== a[index.partitionKey] || b[index.sortKey] !== a[index.sortKey])
        writes.push({ index: index.name, op: 'move', units: writeUnitsOf(b) + writeUnitsOf(a) });
      else if (!same(b, a))
        writes.push({ index: index.name, op: 'update', units: Math.max(writeUnitsOf(b), writeUnitsOf(a)) });
    }
  }
  return { table: tableUnits, indexes: writes };
}

/** The units of a write whose condition failed: the existing item's size, at least 1. */
export function chargeFailedWrite(existing: Item | undefined): number {
  return writeUnitsOf(existing);
}

/**
 * The read units DynamoDB bills for one read request whose engine reported `engineUnits`.
 * dynalite charges a Query or a Scan page by the bytes it read, so one that finds nothing reports
 * 0; DynamoDB bills every Query and every Scan page at least 0.5 RCU (eventually consistent) or
 * 1 RCU (`ConsistentRead`). GetItem and BatchGetItem already come with a missing item's 0.5 or 1.
 */
export function readUnits(command: string, input: { ConsistentRead?: unknown }, engineUnits: number): number {
  if (command !== 'Query' && command !== 'Scan') return engineUnits;
  return Math.max(engineUnits, input.ConsistentRead === true ? 1 : 0.5);
}

/** A readable name for what an item is, from its key (and `entity` attribute when it has one). */
export function entityOf(key: { pk?: unknown; sk?: unknown }, item?: Item): string {
  const pk = String(key.pk ?? '');
  const sk = String(key.sk ?? '');
  // Sesame's own workflow events apart from the rest (bench:workflows counts them with the end).
  if (/^EV#/.test(sk) && String(item?.name ?? '').startsWith('workflow.')) return 'workflowEvent';
  if (typeof item?.entity === 'string') return item.entity;
  if (pk.endsWith('#WFDUE')) return 'workflowDue';
  const named: [RegExp, string][] = [
    [/^#CONTACT$/, 'contact'],
    [/^#EMAIL$/, 'emailClaim'],
    [/^#RATE$/, 'rateWindow'],
    [/^#IDEM$/, 'idempotency'],
    [/^#MSG$/, 'emailRecord'],
    [/^#PROJECT$/, 'project'],
    [/^#KEY$/, 'apiKey'],
    [/^EV#/, 'event'],
    [/^FIELD#/, 'fieldType'],
    [/^TEMPLATE#/, 'template'],
    [/^DOMAIN#/, 'domain'],
    [/^ERR#/, 'importErrors'],
  ];
  for (const [pattern, name] of named) if (pattern.test(sk)) return name;
  if (pk.includes('#EVNAMES')) return 'eventName';
  if (pk.includes('#EVHOURS')) return 'eventHour';
  if (sk === '#JOB') return pk.includes('#IMPORT#') ? 'importJob' : 'bulkJob';
  return sk.split('#')[0] || sk || pk;
}

export interface MeterOptions {
  /** The label each write is recorded under (e.g. 'call' or 'jobs'). @default () => 'call' */
  readonly phase?: () => string;
}

export interface Meter {
  readonly units: Units;
  /** Every item write since the last reset, in order. */
  readonly writes: WriteRecord[];
  /** The units by phase label. */
  readonly byPhase: Record<string, Units>;
  /** Units and writes so far; starts again from zero. */
  reset(): Units & { writes: WriteRecord[]; byPhase: Record<string, Units> };
  /** Runs `fn` with nothing it sends metered (seeding). */
  unmetered<T>(fn: () => Promise<T>): Promise<T>;
}

const isConditionFailed = (error: unknown) =>
  (error as Error)?.name === 'ConditionalCheckFailedException' ||
  /ConditionalCheckFailed/.test(String((error as Error)?.name));

export function meterCapacity(db: DynamoDBDocumentClient, options: MeterOptions = {}): Meter {
  const units: Units = { read: 0, write: 0 };
  let writes: WriteRecord[] = [];
  let byPhase: Record<string, Units> = {};
  const add = (label: string, kind: keyof Units, n: number) => {
    units[kind] += n;
    byPhase[label] ??= { read: 0, write: 0 };
    byPhase[label][kind] += n;
  };
  const phase = options.phase ?? (() => 'call');
  /** Requests the meter sends itself, and those run through `unmetered`: not charged. */
  const own = new WeakSet<object>();
  const off = new AsyncLocalStorage<boolean>();
  const keyOf = (item: Item) => ({
    [table.partitionKey]: item[table.partitionKey],
    [table.sortKey]: item[table.sortKey],
  });

  const peek = async (TableName: string, Key: Item): Promise<Item | undefined> => {
    const input = { TableName, Key, ConsistentRead: true };
    own.add(input);
    return (await db.send(new GetCommand(input))).Item;
  };
  const peekMany = async (TableName: string, keys: Item[]): Promise<Map<string, Item>> => {
    const found = new Map<string, Item>();
    for (let i = 0; i < keys.length; i += 100) {
      const input = { RequestItems: { [TableName]: { Keys: keys.slice(i, i + 100), ConsistentRead: true } } };
      own.add(input);
      const out = await db.send(new BatchGetCommand(input));
      for (const item of out.Responses?.[TableName] ?? []) found.set(JSON.stringify(keyOf(item)), item);
    }
    return found;
  };
  const record = (
    command: WriteRecord['command'],
    key: Item,
    item: Item | undefined,
    charge: WriteCharge,
    failed: boolean,
  ) => {
    const total = charge.table + charge.indexes.reduce((s, w) => s + w.units, 0);
    const label = phase();
    add(label, 'write', total);
    writes.push({ command, entity: entityOf(key, item), failed, phase: label, units: total, ...charge });
  };

  db.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as Record<string, unknown>;
      if (own.has(input) || off.getStore()) return next(args);
      const name = String(context.commandName)
        .replace(/Command$/, '')
        .replace(/Item$/, '');
      const TableName = String(input.TableName ?? '');

      if (name === 'Put' || name === 'Update' || name === 'Delete') {
        const key = (name === 'Put' ? keyOf(input.Item as Item) : input.Key) as Item;
        const before = await peek(TableName, key);
        try {
          const result = await next(args);
          const after =
            name === 'Put'
              ? (input.Item as Item)
              : name === 'Delete'
                ? undefined
                : await peek(TableName, key);
          record(name, key, after ?? before, chargeWrite(before, after), false);
          return result;
        } catch (error) {
          if (isConditionFailed(error))
            record(name, key, before, { table: chargeFailedWrite(before), indexes: [] }, true);
          throw error;
        }
      }

      if (name === 'BatchWrite') {
        const requests = input.RequestItems as Record<
          string,
          { PutRequest?: { Item: Item }; DeleteRequest?: { Key: Item } }[]
        >;
        const befores = new Map<string, Map<string, Item>>();
        for (const [t, list] of Object.entries(requests))
          befores.set(
            t,
            await peekMany(
              t,
              list.map((r) => (r.PutRequest ? keyOf(r.PutRequest.Item) : r.DeleteRequest!.Key)),
            ),
          );
        const result = await next(args);
        const unprocessed = ((result.output as { UnprocessedItems?: typeof requests }).UnprocessedItems ??
          {}) as typeof requests;
        for (const [t, list] of Object.entries(requests)) {
          const skipped = new Set(
            (unprocessed[t] ?? []).map((r) =>
              JSON.stringify(r.PutRequest ? keyOf(r.PutRequest.Item) : r.DeleteRequest!.Key),
            ),
          );
          for (const r of list) {
            const key = r.PutRequest ? keyOf(r.PutRequest.Item) : keyOf(r.DeleteRequest!.Key);
            const id = JSON.stringify(key);
            if (skipped.has(id)) continue;
            const before = befores.get(t)?.get(id);
            const after = r.PutRequest?.Item;
            record(
              r.PutRequest ? 'BatchPut' : 'BatchDelete',
              key,
              after ?? before,
              chargeWrite(before, after),
              false,
            );
          }
        }
        return result;
      }

      // Reads: the engine's own units, with DynamoDB's minimum for a Query or a Scan page.
      input.ReturnConsumedCapacity = 'TOTAL';
      const result = await next(args);
      const consumed = (result.output as { ConsumedCapacity?: unknown }).ConsumedCapacity;
      let read = 0;
      for (const c of ([] as { ReadCapacityUnits?: number; CapacityUnits?: number }[]).concat(
        (consumed as never) ?? [],
      )) {
        read += c.ReadCapacityUnits ?? c.CapacityUnits ?? 0;
      }
      add(phase(), 'read', readUnits(name, input, read));
      return result;
    },
    { step: 'initialize', name: 'benchCapacityMeter' },
  );
  return {
    units,
    get writes() {
      return writes;
    },
    get byPhase() {
      return byPhase;
    },
    reset() {
      const snapshot = { ...units, writes, byPhase };
      units.read = 0;
      units.write = 0;
      writes = [];
      byPhase = {};
      return snapshot;
    },
    unmetered: (fn) => off.run(true, fn),
  };
}
