/**
 * Sesame's variable syntax (`{{name ?? default}}`, names with spaces) rewritten into plain Liquid
 * before parsing, so liquidjs does all the real work:
 *
 * - `{{name ?? default}}` -> `{{name | fallback: "default"}}` (the default applies only when the
 *   value is missing or null; a bare word or number is taken literally, a quoted one as written);
 * - `{{first name}}` -> `{{["first name"]}}` and `{{data[first name] | f}}` ->
 *   `{{data["first name"] | f}}`: names with characters Liquid identifiers cannot hold become
 *   quoted bracket lookups. A plain identifier inside brackets stays a variable, as in Liquid
 *   (`items[i]`); quote it for a literal key (`data["tier"]`).
 *
 * Only output tags (`{{ }}`) are rewritten; `{% %}` tags, `{% raw %}` and `{% comment %}` blocks
 * are copied unchanged, and an output that needs no rewriting is kept byte for byte. Anything this
 * does not recognise is left for Liquid, whose parse error then names the problem.
 */

/** Characters that end or break a path segment; everything else may appear in a data key. */
const STRUCTURAL = /["'[\]{}()|.:,=<>!]/;
const IDENTIFIER = /^[A-Za-z_][\w-]*\??$/;
const IDENTIFIER_PATH = /^[A-Za-z_][\w-]*(\.[A-Za-z_][\w-]*)*$/;
const NUMBER = /^-?\d+(\.\d+)?$/;
const QUOTED = /^(?:"[^"]*"|'[^']*')$/;

/**
 * Characters a translation examined: every scan adds what it looked at, so a test or a bench can
 * show the work is linear in the text (each character is looked at a bounded number of times).
 */
export interface ScanMeter {
  chars: number;
  /** `{{ }}` outputs and `{% %}` tags met (a raw or comment block counts as one). */
  tags?: number;
}

/**
 * Rewrites a template source into Liquid (see the module comment), in one pass: the next `{{`
 * and the next `{%` are each searched for once and remembered until the scan passes them, so no
 * stretch of text is searched again per tag (searching both afresh at every tag made a text of
 * N tags cost N times its length).
 */
export function toLiquid(source: string, meter: ScanMeter = { chars: 0 }): string {
  return runSteps(translate(source, meter, Number.POSITIVE_INFINITY)) ?? '';
}

/** Runs `steps` to their end without pausing: the synchronous way through a stepped task. */
export function runSteps<T>(steps: Generator<void, T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/**
 * `toLiquid` as steps: yields after every `tagsPerStep` tags, so a caller can give the event
 * loop back between them, and stops (returning undefined) once more than `maxTags` tags were met.
 */
export function* translate(
  source: string,
  meter: ScanMeter,
  tagsPerStep: number,
  maxTags = Number.POSITIVE_INFINITY,
): Generator<void, string | undefined> {
  const out: string[] = [];
  let at = 0;
  // The next `{{` / `{%` at or after `at`; -1 once there is none left.
  let output = -2;
  let tag = -2;
  let tags = 0;
  while (at < source.length) {
    if (output !== -1 && output < at) output = find(source, '{{', at, meter);
    if (tag !== -1 && tag < at) tag = find(source, '{%', at, meter);
    if (output < 0 && tag < 0) break;
    if (tag >= 0 && (output < 0 || tag < output)) {
      const end = skipTag(source, tag, meter);
      if (end < 0) break;
      out.push(source.slice(at, end));
      at = end;
    } else {
      const close = findClose(source, output + 2, '}}', meter);
      if (close < 0) break;
      out.push(source.slice(at, output), rewriteOutputTag(source.slice(output, close + 2), meter));
      at = close + 2;
    }
    meter.tags = (meter.tags ?? 0) + 1;
    if (++tags > maxTags) return undefined;
    if (tags % tagsPerStep === 0) yield;
  }
  out.push(source.slice(at));
  return out.join('');
}

/** `source.indexOf(needle, from)`, counting the characters it passed. */
function find(source: string, needle: string, from: number, meter: ScanMeter): number {
  const found = source.indexOf(needle, from);
  meter.chars += (found < 0 ? source.length : found + needle.length) - from;
  return found;
}

const TAG_NAME = /-?\s*(\w+)/y;

/** End (exclusive) of the `{% %}` tag at `start`, past its closing block for raw and comment. */
function skipTag(source: string, start: number, meter: ScanMeter): number {
  const close = findClose(source, start + 2, '%}', meter);
  if (close < 0) return -1;
  TAG_NAME.lastIndex = start + 2;
  const match = TAG_NAME.exec(source);
  const name = match && match.index + match[0].length <= close ? match[1] : undefined;
  if (name !== 'raw' && name !== 'comment') return close + 2;
  const endTag = new RegExp(`\\{%-?\\s*end${name}\\s*-?%\\}`, 'g');
  endTag.lastIndex = close + 2;
  const found = endTag.exec(source);
  meter.chars += (found ? endTag.lastIndex : source.length) - (close + 2);
  return found ? found.index + found[0].length : -1;
}

/** Index of `closer` after `from`, skipping quoted strings; -1 when unterminated. */
function findClose(source: string, from: number, closer: string, meter: ScanMeter): number {
  let quote: string | undefined;
  let i = from;
  for (; i < source.length; i++) {
    const c = source[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") {
      quote = c;
    } else if (source.startsWith(closer, i)) {
      meter.chars += i + closer.length - from;
      return i;
    }
  }
  meter.chars += i - from;
  return -1;
}

function rewriteOutputTag(tag: string, meter: ScanMeter): string {
  let inner = tag.slice(2, -2);
  let left = '';
  let right = '';
  if (inner.startsWith('-')) {
    left = '-';
    inner = inner.slice(1);
  }
  if (inner.endsWith('-')) {
    right = '-';
    inner = inner.slice(0, -1);
  }
  const expression = inner.trim();
  const rewritten = rewriteExpression(expression, meter);
  return rewritten === undefined ? tag : `{{${left} ${rewritten} ${right}}}`;
}

/** The rewritten expression, or undefined when it is plain Liquid already. */
export function rewriteExpression(expression: string, meter: ScanMeter = { chars: 0 }): string | undefined {
  const [head = '', ...filters] = splitTopLevel(expression, '|', meter);
  const fallbackAt = indexTopLevel(head, '??', meter);
  let subject = head.trim();
  let fallback: string | undefined;
  if (fallbackAt >= 0) {
    subject = head.slice(0, fallbackAt).trim();
    if (subject === '') return undefined;
    fallback = literal(head.slice(fallbackAt + 2).trim());
    if (fallback === undefined) return undefined;
  }
  const path = rewritePath(subject, meter);
  if (path === undefined && fallback === undefined) return undefined;
  let out = path ?? subject;
  if (fallback !== undefined) out += ` | fallback: ${fallback}`;
  for (const filter of filters) out += ` |${filter}`;
  return out;
}

/** A default value as a Liquid literal; undefined when it cannot be written as one. */
function literal(text: string): string | undefined {
  if (text === '') return '""';
  if (QUOTED.test(text) || NUMBER.test(text)) return text;
  return quote(text);
}

function quote(text: string): string | undefined {
  if (!text.includes('"')) return `"${text}"`;
  if (!text.includes("'")) return `'${text}'`;
  return undefined;
}

type Segment = { kind: 'name'; text: string } | { kind: 'bracket'; inner: string };

/**
 * A variable path with names Liquid cannot read (spaces and the like) rewritten into quoted
 * bracket lookups; undefined when the text is not such a path or needs no change.
 */
function rewritePath(text: string, meter: ScanMeter): string | undefined {
  if (text === '' || NUMBER.test(text)) return undefined;
  const segments: Segment[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '[') {
      const end = findClose(text, i + 1, ']', meter);
      if (end < 0) return undefined;
      segments.push({ kind: 'bracket', inner: text.slice(i + 1, end).trim() });
      i = end + 1;
      continue;
    }
    if (c === '.' && segments.length === 0) return undefined;
    const start = c === '.' ? i + 1 : i;
    if (c !== '.' && segments.length > 0) return undefined;
    let end = start;
    while (end < text.length && text[end] !== '.' && text[end] !== '[') end++;
    meter.chars += end - i;
    const name = text.slice(start, end).trim();
    if (name === '' || STRUCTURAL.test(name)) return undefined;
    segments.push({ kind: 'name', text: name });
    i = end;
  }
  let changed = false;
  let out = '';
  for (const [index, segment] of segments.entries()) {
    if (segment.kind === 'bracket') {
      const inner = segment.inner;
      if (QUOTED.test(inner) || /^-?\d+$/.test(inner) || IDENTIFIER_PATH.test(inner)) {
        out += `[${inner}]`;
        continue;
      }
      if (inner === '' || /["']/.test(inner)) return undefined;
      out += `["${inner}"]`;
      changed = true;
      continue;
    }
    const name = segment.text;
    if (IDENTIFIER.test(name) || (index > 0 && /^\d+$/.test(name))) {
      out += index === 0 ? name : `.${name}`;
      continue;
    }
    const quoted = quote(name);
    if (quoted === undefined) return undefined;
    out += `[${quoted}]`;
    changed = true;
  }
  return changed ? out : undefined;
}

/** Splits on `separator` outside quotes and brackets. */
function splitTopLevel(text: string, separator: string, meter: ScanMeter): string[] {
  const parts: string[] = [];
  let start = 0;
  let at = indexTopLevel(text, separator, meter, start);
  while (at >= 0) {
    parts.push(text.slice(start, at));
    start = at + separator.length;
    at = indexTopLevel(text, separator, meter, start);
  }
  parts.push(text.slice(start));
  return parts;
}

/** Index of `needle` outside quotes and brackets, from `from`; -1 when absent. */
function indexTopLevel(text: string, needle: string, meter: ScanMeter, from = 0): number {
  let quoteChar: string | undefined;
  let depth = 0;
  for (let i = from; i < text.length; i++) {
    const c = text[i]!;
    if (quoteChar) {
      if (c === quoteChar) quoteChar = undefined;
    } else if (c === '"' || c === "'") {
      quoteChar = c;
    } else if (c === '[' || c === '(') {
      depth++;
    } else if (c === ']' || c === ')') {
      depth = Math.max(0, depth - 1);
    } else if (depth === 0 && text.startsWith(needle, i)) {
      meter.chars += i + needle.length - from;
      return i;
    }
  }
  meter.chars += text.length - from;
  return -1;
}
