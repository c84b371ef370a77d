/**
 * Unit-test stand-ins for the ports that emitting and sending touch: an in-memory store (gets and
 * puts, updates of the `SET a = :v, b = if_not_exists(b, :v) ADD c :n` kind, deletes, the
 * conditions `attribute_exists(pk)` / `attribute_not_exists(pk)`, and table queries by sort-key
 * prefix), a queue that keeps what is sent, and one log of both in order, so a test can tell
 * which came first.
 */
import type { QueueMessage, QueuePort } from '../../../shared/ports';
import { type Item, type Key, type Store, storeOver, type Write } from '../../../shared/store/store';

export type Step =
  | { readonly op: 'put' | 'update' | 'delete' | 'get'; readonly key: Key }
  | { readonly op: 'send'; readonly message: QueueMessage };

export interface Memory {
  readonly store: Store;
  /** `sent`: the messages, in order; `delays`: each one's `delaySeconds` (0 when none). */
  readonly queue: QueuePort & { readonly sent: QueueMessage[]; readonly delays: number[] };
  /** Every store request and queue send, in order. */
  readonly log: Step[];
  /** The item at `key`, if any. */
  item(key: Key): Item | undefined;
  /** Items whose sort key starts with `prefix`. */
  itemsWhere(prefix: string): Item[];
  /** The next write of this kind to an item whose sort key starts with `skPrefix` fails, once. */
  failNext(op: 'put' | 'update', skPrefix: string): void;
}

const id = (key: Key) => `${key.pk}\u0000${key.sk}`;

function conditionFailed(): Error {
  const error = new Error('The conditional request failed');
  error.name = 'ConditionalCheckFailedException';
  return error;
}

/** `a, b(c, d), e` -> `['a', 'b(c, d)', 'e']`. */
function splitTop(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')') depth--;
    else if (text[i] === ',' && depth === 0) {
      parts.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  parts.push(text.slice(start).trim());
  return parts.filter((p) => p !== '');
}

function applyUpdate(current: Item, write: Extract<Write, { update: Key }>): Item {
  const name = (n: string) => (n.startsWith('#') ? (write.names?.[n] ?? n) : n);
  const value = (v: string) => {
    if (!(v in (write.values ?? {}))) throw new Error(`memory store: no value ${v}`);
    return write.values?.[v];
  };
  const next: Item = { ...current };
  for (const [, clause, body] of write.expression.matchAll(
    /\b(SET|ADD)\b\s+(.*?)(?=\s+\b(?:SET|ADD)\b|$)/g,
  )) {
    for (const part of splitTop(body!)) {
      if (clause === 'SET') {
        const [lhs, rhs] = part.split(/\s*=\s*/) as [string, string];
        const ifNot = /^if_not_exists\(\s*([^,]+?)\s*,\s*(:\w+)\s*\)$/.exec(rhs);
        next[name(lhs)] = ifNot ? (current[name(ifNot[1]!)] ?? value(ifNot[2]!)) : value(rhs);
      } else {
        const [lhs, rhs] = part.split(/\s+/) as [string, string];
        next[name(lhs)] = Number(current[name(lhs)] ?? 0) + Number(value(rhs));
      }
    }
  }
  return next;
}

export function memory(): Memory {
  const items = new Map<string, Item>();
  const log: Step[] = [];
  const failures: { op: 'put' | 'update'; skPrefix: string }[] = [];
  const holds = (condition: string | undefined, existing: Item | undefined) => {
    if (condition === undefined) return true;
    if (condition === 'attribute_not_exists(pk)') return existing === undefined;
    if (condition === 'attribute_exists(pk)') return existing !== undefined;
    throw new Error(`memory store: unsupported condition ${condition}`);
  };
  const store = storeOver({
    async get(key) {
      log.push({ op: 'get', key });
      const found = items.get(id(key));
      return found && structuredClone(found);
    },
    async batchGet(keys) {
      return keys.flatMap((k) => (items.has(id(k)) ? [structuredClone(items.get(id(k))!)] : []));
    },
    async write(write) {
      const key: Key =
        'put' in write
          ? { pk: String(write.put.pk), sk: String(write.put.sk) }
          : 'update' in write
            ? write.update
            : write.delete;
      const op = 'put' in write ? 'put' : 'update' in write ? 'update' : 'delete';
      const failure = failures.findIndex((f) => f.op === op && key.sk.startsWith(f.skPrefix));
      if (failure >= 0) {
        failures.splice(failure, 1);
        throw new Error('simulated crash');
      }
      log.push({ op, key });
      const existing = items.get(id(key));
      if (!holds(write.if, existing)) throw conditionFailed();
      if ('put' in write) {
        items.set(id(key), structuredClone(write.put));
        return undefined;
      }
      if ('update' in write) {
        const next = applyUpdate(existing ?? { ...key }, write);
        items.set(id(key), next);
        return write.returnNew ? structuredClone(next) : undefined;
      }
      items.delete(id(key));
      return write.returnOld ? existing : undefined;
    },
    async batchDelete(keys) {
      for (const k of keys) items.delete(id(k));
    },
    query: () => Promise.reject(new Error('memory store: queries are not supported')),
    // A table partition, whole or by sort-key prefix (what reading a project's segment
    // definitions asks); no index, filter, or other key condition.
    queryAll: (query) => {
      const sort = query.sort as { beginsWith?: string } | undefined;
      if (query.index || query.filter || (sort && sort.beginsWith === undefined))
        throw new Error('memory store: only table queries by sort-key prefix are supported');
      const prefix = sort?.beginsWith ?? '';
      const found = [...items.values()]
        .filter((item) => item.pk === query.partition && String(item.sk).startsWith(prefix))
        .sort((a, b) => (String(a.sk) < String(b.sk) ? -1 : 1))
        .map((item) => structuredClone(item));
      return (async function* () {
        yield* found;
      })();
    },
    count: () => Promise.reject(new Error('memory store: queries are not supported')),
  });
  const sent: QueueMessage[] = [];
  const delays: number[] = [];
  const queue = {
    sent,
    delays,
    async send(_queue: string, message: QueueMessage, options?: { delaySeconds?: number }) {
      log.push({ op: 'send', message });
      sent.push(structuredClone(message));
      delays.push(options?.delaySeconds ?? 0);
    },
  };
  return {
    store,
    queue,
    log,
    item: (key) => items.get(id(key)),
    itemsWhere: (prefix) => [...items.values()].filter((i) => String(i.sk).startsWith(prefix)),
    failNext: (op, skPrefix) => {
      failures.push({ op, skPrefix });
    },
  };
}
