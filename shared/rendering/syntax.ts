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

/** Rewrites a template source into Liquid (see the module comment). */
export function toLiquid(source: string): string {
  let out = '';
  let at = 0;
  while (at < source.length) {
    const output = source.indexOf('{{', at);
    const tag = source.indexOf('{%', at);
    if (output < 0 && tag < 0) break;
    if (tag >= 0 && (output < 0 || tag < output)) {
      const end = skipTag(source, tag);
      if (end < 0) break;
      out += source.slice(at, end);
      at = end;
      continue;
    }
    const close = findClose(source, output + 2, '}}');
    if (close < 0) break;
    out += source.slice(at, output);
    out += rewriteOutputTag(source.slice(output, close + 2));
    at = close + 2;
  }
  return out + source.slice(at);
}

/** End (exclusive) of the `{% %}` tag at `start`, past its closing block for raw and comment. */
function skipTag(source: string, start: number): number {
  const close = findClose(source, start + 2, '%}');
  if (close < 0) return -1;
  const name = /^-?\s*(\w+)/.exec(source.slice(start + 2, close))?.[1];
  if (name !== 'raw' && name !== 'comment') return close + 2;
  const endTag = new RegExp(`\\{%-?\\s*end${name}\\s*-?%\\}`, 'g');
  endTag.lastIndex = close + 2;
  const found = endTag.exec(source);
  return found ? found.index + found[0].length : -1;
}

/** Index of `closer` after `from`, skipping quoted strings; -1 when unterminated. */
function findClose(source: string, from: number, closer: string): number {
  let quote: string | undefined;
  for (let i = from; i < source.length; i++) {
    const c = source[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") {
      quote = c;
    } else if (source.startsWith(closer, i)) {
      return i;
    }
  }
  return -1;
}

function rewriteOutputTag(tag: string): string {
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
  const rewritten = rewriteExpression(expression);
  return rewritten === undefined ? tag : `{{${left} ${rewritten} ${right}}}`;
}

/** The rewritten expression, or undefined when it is plain Liquid already. */
export function rewriteExpression(expression: string): string | undefined {
  const [head = '', ...filters] = splitTopLevel(expression, '|');
  const fallbackAt = indexTopLevel(head, '??');
  let subject = head.trim();
  let fallback: string | undefined;
  if (fallbackAt >= 0) {
    subject = head.slice(0, fallbackAt).trim();
    if (subject === '') return undefined;
    fallback = literal(head.slice(fallbackAt + 2).trim());
    if (fallback === undefined) return undefined;
  }
  const path = rewritePath(subject);
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
function rewritePath(text: string): string | undefined {
  if (text === '' || NUMBER.test(text)) return undefined;
  const segments: Segment[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '[') {
      const end = findClose(text, i + 1, ']');
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
function splitTopLevel(text: string, separator: string): string[] {
  const parts: string[] = [];
  let start = 0;
  let at = indexTopLevel(text, separator, start);
  while (at >= 0) {
    parts.push(text.slice(start, at));
    start = at + separator.length;
    at = indexTopLevel(text, separator, start);
  }
  parts.push(text.slice(start));
  return parts;
}

/** Index of `needle` outside quotes and brackets, from `from`; -1 when absent. */
function indexTopLevel(text: string, needle: string, from = 0): number {
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
      return i;
    }
  }
  return -1;
}
