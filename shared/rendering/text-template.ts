/**
 * The plain-text alternative derived once per template instead of once per message.
 *
 * A body made only of literal HTML and output tags (no `{% %}` tag) is converted once by
 * html-to-text with a sentinel in place of each output, unwrapped: a text template whose lines
 * hold sentinels. Per message, each output is rendered on its own (so the HTML is the same
 * concatenation Liquid makes), its value decoded and put in place of its sentinel, and the line
 * wrapped as html-to-text wraps it (greedy, at TEXT_LINE_LENGTH).
 *
 * That is only the same text as `htmlToText(html)` where html-to-text treats a value as plain
 * words, so the derivation is proved per template, by comparing both ways on probe values (short,
 * long, with spaces, entities, one long word, all equal, empty), and refused (undefined) when any
 * differs; and per message a value that is not plain (markup, entities other than Liquid's
 * escapes, whitespace other than single spaces, `#` or `mailto:` first, or a link whose text
 * would equal its href) makes that message take the per-recipient conversion.
 */
import type { Template } from 'liquidjs';
import { htmlToText, TEXT_LINE_LENGTH } from './index';
import { type CompiledTemplate, MAX_RENDERED_CHARS, outputParts, RenderError, renderOutput } from './liquid';

const OPEN = '\uE000';
const CLOSE = '\uE001';
const SENTINEL = /\uE000(\d+)\uE001/g;

type Pattern = Array<string | number>;

export interface DerivedText {
  /** Final lines, or patterns to substitute and wrap. */
  readonly lines: ReadonlyArray<string | Pattern>;
  /** Links whose href holds a value: the message falls back when href equals their text. */
  readonly links: ReadonlyArray<{ readonly href: Pattern; readonly text: string }>;
  /** Whether an empty value is proved to convert the same. */
  readonly emptyOk: boolean;
}

export interface DerivedBody {
  readonly parts: ReadonlyArray<string | Template>;
  readonly outputs: number;
  /** The text template of the body, and of the body with the footer in each language (its URL the last value). */
  readonly text: {
    plain?: DerivedText | null;
    [footerLanguage: `footer:${string}`]: DerivedText | null | undefined;
  };
}

/** The body's literal parts and outputs; undefined when it has tags (or our sentinels). */
export function deriveBody(body: CompiledTemplate): DerivedBody | undefined {
  if (body.kind !== 'html' || body.source.includes(OPEN) || body.source.includes(CLOSE)) return undefined;
  const parts = outputParts(body);
  if (!parts) return undefined;
  return { parts, outputs: parts.filter((p) => typeof p !== 'string').length, text: {} };
}

/** Renders the body's outputs one by one: the HTML and each output's value. */
export function renderBody(
  template: CompiledTemplate,
  body: DerivedBody,
  variables: Record<string, unknown>,
): { html: string; values: string[] } {
  const values: string[] = [];
  let html = '';
  for (const p of body.parts) {
    if (typeof p === 'string') html += p;
    else {
      const v = renderOutput(template, p, variables);
      values.push(v);
      html += v;
    }
  }
  if (html.length > MAX_RENDERED_CHARS)
    throw new RenderError(`The rendered html exceeds ${MAX_RENDERED_CHARS} characters`);
  return { html, values };
}

const escapeHtml = (s: string) =>
  s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&#34;')
    .replace(/'/g, '&#39;');

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#34': '"', '#39': "'" };

/** The text of an escaped value; undefined when html-to-text could read it other than as words. */
function plainValue(html: string, emptyOk: boolean): string | undefined {
  if (html === '') return emptyOk ? '' : undefined;
  if (html.includes('<') || html.includes('>')) return undefined;
  let bad = false;
  const text = html.replace(/&([^;]*);?/g, (m, name: string) => {
    const c = m.endsWith(';') ? ENTITIES[name] : undefined;
    if (c === undefined) bad = true;
    return c ?? m;
  });
  if (bad || !/^[^\s\u200b]+(?: [^\s\u200b]+)*$/.test(text)) return undefined;
  if (text.startsWith('#') || text.startsWith('mailto:')) return undefined;
  return text;
}

/** Greedy wrap of a line of single-space-separated words, as html-to-text wraps. */
export function wrapLine(line: string, width = TEXT_LINE_LENGTH): string {
  if (line.length <= width) return line;
  const out: string[] = [];
  let current = '';
  for (const word of line.split(' ')) {
    if (current === '') current = word;
    else if (current.length + 1 + word.length <= width) current += ` ${word}`;
    else {
      out.push(current);
      current = word;
    }
  }
  out.push(current);
  return out.join('\n');
}

function toPattern(text: string): Pattern {
  const pattern: Pattern = [];
  let at = 0;
  for (const m of text.matchAll(SENTINEL)) {
    pattern.push(text.slice(at, m.index), Number(m[1]));
    at = m.index + m[0].length;
  }
  pattern.push(text.slice(at));
  return pattern;
}

const fill = (pattern: Pattern, values: readonly string[]) =>
  pattern.map((p) => (typeof p === 'number' ? values[p] : p)).join('');

type Footer = (html: string, url: string) => string;

/** The body's HTML from its output values (HTML), with the footer of `url` (text) when given. */
function htmlWith(body: DerivedBody, values: readonly string[], footer?: Footer, url = '') {
  let i = 0;
  let html = '';
  for (const p of body.parts) html += typeof p === 'string' ? p : values[i++];
  return footer ? footer(html, url) : html;
}

function applyText(derived: DerivedText, texts: readonly string[]): string | undefined {
  for (const link of derived.links) if (fill(link.href, texts) === link.text) return undefined;
  return derived.lines.map((l) => (typeof l === 'string' ? l : wrapLine(fill(l, texts)))).join('\n');
}

const PROBES: ReadonlyArray<(i: number) => string> = [
  (i) => `value${i}`,
  (i) => `Lorem ipsum dolor sit amet ${i}, consectetur adipiscing elit, sed do eiusmod tempor incididunt`,
  (i) => `${'averyveryverylongword'.repeat(5)}${i}`,
  (i) => `a&b <c> "d" 'e' ${i} Zoë 日本`,
  () => 'same',
  (i) => `https://example.com/path/${i}?a=1&b=2`,
];

/**
 * The text template of the body (with the footer `footer(html, url)` appended when given),
 * proved on the probes; null when the derivation does not hold for this template.
 */
export function deriveText(body: DerivedBody, footer?: Footer): DerivedText | null {
  const n = body.outputs + (footer ? 1 : 0);
  const sentinels = Array.from({ length: n }, (_, i) => `${OPEN}${i}${CLOSE}`);
  const sentinelHtml = htmlWith(body, sentinels, footer, sentinels[n - 1]);
  const unwrapped = htmlToText(sentinelHtml, false);
  const lines = unwrapped.split('\n').map((l) => (l.includes(OPEN) ? toPattern(l) : wrapLine(l)));
  const links: Array<{ href: Pattern; text: string }> = [];
  for (const m of sentinelHtml.matchAll(/<a\b([^>]*)>([\s\S]*?)<\/a\s*>/gi)) {
    const href = /\bhref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/i.exec(m[1]!);
    const value = href ? (href[1] ?? href[2] ?? href[3] ?? '') : '';
    if (!value.includes(OPEN)) continue;
    if (m[2]!.includes(OPEN) || /<a\b/i.test(m[2]!)) return null;
    const text = htmlToText(`<p>${m[2]}</p>`, false);
    links.push({
      href: toPattern(value.replace(/&(amp|lt|gt|quot|#34|#39);/g, (_, e: string) => ENTITIES[e]!)),
      text,
    });
  }
  const candidate = { lines, links, emptyOk: false };
  const agrees = (texts: string[]) => {
    const htmls = texts.map(escapeHtml);
    const expected = htmlToText(htmlWith(body, htmls, footer, texts[n - 1]));
    return applyText(candidate, texts) === expected;
  };
  for (const probe of PROBES) if (!agrees(Array.from({ length: n }, (_, i) => probe(i)))) return null;
  const emptyOk = agrees(Array.from({ length: n }, () => ''));
  return { lines, links, emptyOk };
}

/**
 * The plain text of a message from its rendered output values (HTML, as rendered) and the
 * footer URL when the derived text has one; undefined when a value is not plain, so the
 * caller converts the HTML itself.
 */
export function textFromValues(
  derived: DerivedText,
  values: readonly string[],
  footerUrl?: string,
): string | undefined {
  const texts: string[] = [];
  for (const v of footerUrl === undefined ? values : [...values, escapeHtml(footerUrl)]) {
    const t = plainValue(v, derived.emptyOk);
    if (t === undefined) return undefined;
    texts.push(t);
  }
  return applyText(derived, texts);
}
