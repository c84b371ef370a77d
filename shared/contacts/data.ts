/**
 * The custom-data rules (README, "API behaviour"), as pure functions used wherever
 * a `data` object is accepted: contacts, `/v1/send`, `/v1/track` and CSV rows.
 */
import { type FieldIssue, validationError } from '../errors';
import { isCanonicalDate } from './dates';

/** Removed silently from every payload (rule 2; `sesame_*` are the service's own keys). */
export const RESERVED_KEYS: ReadonlySet<string> = new Set([
  'id',
  'sesame_id',
  'sesame_email',
  'email',
  'unsubscribeUrl',
  'subscribeUrl',
  'manageUrl',
]);

/**
 * Names refused as custom-data keys at any depth (and as any segment of a dotted field path or a
 * CSV column): 422 VALIDATION_ERROR with field code `invalid_key`. They are JavaScript's object
 * machinery, not data: `__proto__` set by assignment replaces an object's prototype, and an own
 * `constructor` makes DynamoDB's marshaller mistake a plain object for a class instance (a 500,
 * or a map silently stored as "[object Object]"). `prototype` goes with them so that no path can
 * reach `constructor.prototype`. Refusing them (rather than dropping them silently, as the
 * reserved keys are) tells the caller that their data was not stored as sent. Matched
 * exactly: `Constructor` or `my_prototype` are ordinary keys.
 */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

export const isForbiddenKey = (key: string): boolean => FORBIDDEN_KEYS.has(key);

/** The field error for a forbidden key found at `path` (e.g. `data.profile.constructor`). */
export function forbiddenKeyIssue(path: string, key: string, field = path): FieldIssue {
  return {
    field,
    message: `"${key}" cannot be used as a data key (found at ${path}): __proto__, constructor and prototype are reserved`,
    code: 'invalid_key',
    received: key,
  };
}

/**
 * Checks a dotted custom-field path (a field name in a URL, a CSV column) for forbidden segments;
 * returns the issues, reported at `field`.
 */
export function dataPathIssues(path: string, field: string, shown = path): FieldIssue[] {
  const bad = path.split('.').find(isForbiddenKey);
  return bad === undefined ? [] : [forbiddenKeyIssue(shown, bad, field)];
}

export type FieldType = 'string' | 'number' | 'boolean' | 'date' | 'array';

export type DataValue = string | number | boolean | DataValue[] | { [key: string]: DataValue };
export type ContactData = { [key: string]: DataValue };

/** A parsed `data` payload, split into what is stored and what is used once. */
export interface DataPatch {
  /** Keys to set, with nested objects given as patches themselves. */
  readonly set: Readonly<Record<string, DataValue | DataPatch>>;
  /** Keys to delete (sent as null). */
  readonly remove: readonly string[];
  /** `{value, persistent: false}` values: for this send or event only (nested ones keep their path). */
  readonly transient: ContactData;
}

export const MAX_DATA_BYTES = 32 * 1024;
const MAX_KEY_LENGTH = 100;
const MAX_DEPTH = 5;

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const isTransient = (v: unknown): v is { value: unknown; persistent: false } =>
  isPlainObject(v) && 'value' in v && v.persistent === false && Object.keys(v).length === 2;

const isWrapped = (v: unknown): v is { value: unknown; persistent: true } =>
  isPlainObject(v) && 'value' in v && v.persistent === true && Object.keys(v).length === 2;

/**
 * Rule 5: number, boolean, date (YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS[.sss]Z, a real calendar date:
 * `2024-13-45` and `2024-02-30` stay strings), otherwise string.
 */
export function inferType(value: DataValue): FieldType {
  if (typeof value === 'number') return 'number';
  if (typeof value === 'boolean') return 'boolean';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'string' && isCanonicalDate(value)) return 'date';
  return 'string';
}

export function emptyPatch(): DataPatch {
  const patch = { set: {}, remove: [], transient: {} };
  patches.add(patch);
  return patch;
}

/** A `data` payload as sent, at most: room for 32 KB of stored values plus 32 KB of one-off ones. */
export const MAX_DATA_PAYLOAD_BYTES = 2 * MAX_DATA_BYTES;

/**
 * Refuses a `data` payload over `MAX_DATA_PAYLOAD_BYTES` with 422 before anything is done with
 * it (no Idempotency-Key claimed, no contact touched).
 */
export function checkDataPayloadSize(data: unknown, field = 'data'): void {
  const size = data === undefined ? 0 : Buffer.byteLength(JSON.stringify(data));
  if (size > MAX_DATA_PAYLOAD_BYTES) {
    throw validationError([
      {
        field,
        message: `${field} must be at most ${MAX_DATA_PAYLOAD_BYTES} bytes`,
        code: 'too_big',
        received: size,
      },
    ]);
  }
}

/**
 * Validates and splits a `data` payload. Reserved keys are dropped silently; an empty string is
 * ignored; null deletes; `{value, persistent: false}` is transient. Throws 422 for what cannot be
 * stored (non-object data, empty or dotted keys, `FORBIDDEN_KEYS` at any depth, too deep, too
 * large).
 */
export function parseDataPatch(input: unknown, fieldPrefix = 'data'): DataPatch {
  if (input === undefined) return emptyPatch();
  const issues: FieldIssue[] = [];
  if (!isPlainObject(input)) {
    throw validationError([
      {
        field: fieldPrefix,
        message: 'data must be an object',
        code: 'invalid_type',
        received: typeOf(input),
      },
    ]);
  }
  const patch = walk(input, fieldPrefix, 1, issues, true);
  if (issues.length > 0) throw validationError(issues);
  return patch;
}

function walk(
  obj: Record<string, unknown>,
  path: string,
  depth: number,
  issues: FieldIssue[],
  topLevel: boolean,
): DataPatch {
  const set: Record<string, DataValue | DataPatch> = {};
  const remove: string[] = [];
  const transient: ContactData = {};
  for (const [key, raw] of Object.entries(obj)) {
    const at = `${path}.${key}`;
    if (isForbiddenKey(key)) {
      issues.push(forbiddenKeyIssue(at, key));
      continue;
    }
    if (topLevel && RESERVED_KEYS.has(key)) continue;
    if (key.length === 0 || key.length > MAX_KEY_LENGTH || key.includes('.')) {
      issues.push({
        field: at,
        message: `Keys must be 1 to ${MAX_KEY_LENGTH} characters without dots`,
        code: 'invalid_key',
        received: key,
      });
      continue;
    }
    if (raw === null) {
      remove.push(key);
    } else if (raw === '') {
      // Rule: an empty string never overwrites.
    } else if (isTransient(raw)) {
      const value = toValue(raw.value, at, depth, issues);
      if (value !== undefined) transient[key] = value;
    } else if (isWrapped(raw)) {
      const value = toValue(raw.value, at, depth, issues);
      if (value !== undefined) set[key] = value;
    } else if (isPlainObject(raw)) {
      if (depth >= MAX_DEPTH) {
        issues.push({ field: at, message: `Nesting deeper than ${MAX_DEPTH} levels`, code: 'too_big' });
        continue;
      }
      const nested = walk(raw, at, depth + 1, issues, false);
      set[key] = nested;
      if (Object.keys(nested.transient).length > 0) transient[key] = nested.transient;
    } else {
      const value = toValue(raw, at, depth, issues);
      if (value !== undefined) set[key] = value;
    }
  }
  const patch = { set, remove, transient };
  patches.add(patch);
  return patch;
}

function toValue(raw: unknown, at: string, depth: number, issues: FieldIssue[]): DataValue | undefined {
  if (typeof raw === 'string' || typeof raw === 'boolean') return raw;
  if (typeof raw === 'number') {
    if (Number.isFinite(raw)) return raw;
    issues.push({
      field: at,
      message: 'Numbers must be finite',
      code: 'invalid_type',
      received: String(raw),
    });
    return undefined;
  }
  if (Array.isArray(raw)) {
    const out: DataValue[] = [];
    raw.forEach((item, i) => {
      const v = item === null ? undefined : toValue(item, `${at}.${i}`, depth + 1, issues);
      if (v !== undefined) out.push(v);
    });
    return out;
  }
  if (isPlainObject(raw)) {
    if (depth >= MAX_DEPTH) {
      issues.push({ field: at, message: `Nesting deeper than ${MAX_DEPTH} levels`, code: 'too_big' });
      return undefined;
    }
    const out: ContactData = {};
    for (const [k, v] of Object.entries(raw)) {
      if (isForbiddenKey(k)) {
        issues.push(forbiddenKeyIssue(`${at}.${k}`, k));
        continue;
      }
      const value = v === null ? undefined : toValue(v, `${at}.${k}`, depth + 1, issues);
      if (value !== undefined) out[k] = value;
    }
    return out;
  }
  issues.push({ field: at, message: 'Unsupported value', code: 'invalid_type', received: typeOf(raw) });
  return undefined;
}

/** Patches made by `walk`, so a stored object value can never be mistaken for a nested patch. */
const patches = new WeakSet<object>();
const isPatch = (v: DataValue | DataPatch): v is DataPatch => typeof v === 'object' && patches.has(v);

/**
 * Rule 1: applies a patch to stored data: only the keys sent change; nested objects are patched
 * the same way. Returns the new data and every leaf path set (for type inference).
 */
export function applyDataPatch(
  current: ContactData,
  patch: DataPatch,
): { data: ContactData; setPaths: [string, DataValue][] } {
  const setPaths: [string, DataValue][] = [];
  const data = applyAt(current, patch, '', setPaths);
  const size = Buffer.byteLength(JSON.stringify(data));
  if (size > MAX_DATA_BYTES) {
    throw validationError([
      {
        field: 'data',
        message: `Contact data must be at most ${MAX_DATA_BYTES} bytes`,
        code: 'too_big',
        received: size,
      },
    ]);
  }
  return { data, setPaths };
}

function applyAt(
  current: ContactData,
  patch: DataPatch,
  prefix: string,
  setPaths: [string, DataValue][],
): ContactData {
  const next: ContactData = { ...current };
  for (const key of patch.remove) delete next[key];
  for (const [key, value] of Object.entries(patch.set)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (isPatch(value)) {
      const existing = next[key];
      const base = isPlainObject(existing) ? (existing as ContactData) : {};
      const merged = applyAt(base, value, path, setPaths);
      next[key] = merged;
    } else {
      next[key] = value;
      collectLeaves(path, value, setPaths);
    }
  }
  return next;
}

function collectLeaves(path: string, value: DataValue, out: [string, DataValue][]) {
  if (isPlainObject(value)) {
    for (const [k, v] of Object.entries(value as ContactData)) collectLeaves(`${path}.${k}`, v, out);
  } else {
    out.push([path, value]);
  }
}

/** Every leaf path present in stored data (nested objects flattened with dots). */
export function leafPaths(data: ContactData, prefix = ''): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(data)) {
    const path = prefix ? `${prefix}.${k}` : k;
    if (isPlainObject(v)) out.push(...leafPaths(v as ContactData, path));
    else out.push(path);
  }
  return out;
}

/** Reads a dotted path from data. */
export function getPath(data: ContactData, path: string): DataValue | undefined {
  let node: DataValue | undefined = data;
  for (const part of path.split('.')) {
    // Own keys only: `constructor` or `toString` are not data.
    if (!isPlainObject(node) || !Object.hasOwn(node, part)) return undefined;
    node = (node as ContactData)[part];
  }
  return node;
}

/** Removes a dotted path (and empty parents left behind); returns whether anything changed. */
export function removePath(data: ContactData, path: string): boolean {
  const parts = path.split('.');
  const last = parts.pop()!;
  const parents: ContactData[] = [];
  let node: ContactData = data;
  for (const part of parts) {
    const next = Object.hasOwn(node, part) ? node[part] : undefined;
    if (!isPlainObject(next)) return false;
    parents.push(node);
    node = next as ContactData;
  }
  if (!Object.hasOwn(node, last)) return false;
  delete node[last];
  for (let i = parts.length - 1; i >= 0; i--) {
    const parent = parents[i]!;
    const child = parent[parts[i]!] as ContactData;
    if (Object.keys(child).length === 0) delete parent[parts[i]!];
    else break;
  }
  return true;
}

/** Merges stored data with request data for rendering (transient values win, nested merged). */
export function mergeForRender(stored: ContactData, patch: DataPatch): ContactData {
  const { data } = applyDataPatchUnchecked(stored, patch);
  return deepMerge(data, patch.transient);
}

function applyDataPatchUnchecked(current: ContactData, patch: DataPatch) {
  return { data: applyAt(current, patch, '', []) };
}

function deepMerge(base: ContactData, over: ContactData): ContactData {
  const out: ContactData = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const b = out[k];
    out[k] = isPlainObject(v) && isPlainObject(b) ? deepMerge(b as ContactData, v as ContactData) : v;
  }
  return out;
}

function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}
