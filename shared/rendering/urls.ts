/**
 * URL attributes of a rendered HTML body, made safe against script URLs from contact data.
 *
 * HTML escaping keeps a value inside its attribute, but not out of a URL's scheme: a contact
 * whose `data.site` is `javascript:alert(1)` rendered into `<a href="{{data.site}}">` is a script
 * link. So after rendering, every URL attribute (href, src, action, formaction, ...) whose value
 * has a scheme other than http, https, mailto and tel (and cid for the attributes that load
 * images) is replaced by `about:blank`, a URL that loads nothing and runs nothing: the link stays
 * a link, to nowhere. A value with no scheme (relative, `#anchor`, `?query`) is left as it is.
 *
 * The scheme is read as a browser would read it, and more strictly: entities are decoded once
 * (`java&#x09;script:`), and whitespace, control and invisible characters are dropped anywhere,
 * so `  JaVa\tScRiPt:` is `javascript:`.
 *
 * A value the template's own text holds as it is (an author's literal `href="javascript:..."`)
 * is the author's choice and is left alone; only a value that rendering made (contact or request
 * data in it, or a whole tag from `| raw`) is replaced.
 */

/** Attributes whose value is a URL the client follows or loads. */
const URL_ATTRIBUTES: ReadonlySet<string> = new Set([
  'href',
  'src',
  'action',
  'formaction',
  'xlink:href',
  'background',
  'poster',
  'cite',
  'longdesc',
  'lowsrc',
  'dynsrc',
  'codebase',
  'data',
]);
/** The longest name in URL_ATTRIBUTES. */
const MAX_NAME = 10;
/** Attributes that load an image or media, where a `cid:` (an inline attachment) is expected. */
const LOADING_ATTRIBUTES: ReadonlySet<string> = new Set(['src', 'background', 'poster', 'lowsrc', 'dynsrc']);
const SAFE_SCHEMES: ReadonlySet<string> = new Set(['http', 'https', 'mailto', 'tel']);

/** What an unsafe URL becomes. */
export const NEUTRAL_URL = 'about:blank';

const NAMED: Readonly<Record<string, string>> = {
  colon: ':',
  tab: '\t',
  newline: '\n',
  nbsp: ' ',
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  plus: '+',
  period: '.',
  sol: '/',
};

/** Decodes character references once, as the HTML parser does before the URL is read. */
function decodeOnce(value: string): string {
  return value.replace(/&(?:#(\d{1,8})|#x([0-9a-f]{1,8})|([a-z]{2,8}));?/gi, (whole, dec, hex, name) => {
    if (dec !== undefined || hex !== undefined) {
      const code = dec !== undefined ? Number(dec) : Number.parseInt(hex, 16);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : '';
    }
    return NAMED[String(name).toLowerCase()] ?? whole;
  });
}

/** Characters a browser drops from a URL (or ignores around it), and invisible ones. */
function isIgnored(c: number): boolean {
  return (
    c <= 0x20 ||
    (c >= 0x7f && c <= 0xa0) ||
    c === 0xad ||
    c === 0x34f ||
    c === 0x115f ||
    c === 0x1160 ||
    c === 0x180e ||
    (c >= 0x200b && c <= 0x200f) ||
    (c >= 0x2028 && c <= 0x202e) ||
    (c >= 0x2060 && c <= 0x206f) ||
    c === 0xfeff
  );
}

/** Longest scheme looked for: longer ones are no scheme a client runs. */
const MAX_SCHEME = 32;

/** The URL's scheme, lower-cased; undefined for a relative URL. */
export function urlScheme(value: string): string | undefined {
  const decoded = decodeOnce(value);
  let scheme = '';
  for (let i = 0; i < decoded.length && scheme.length <= MAX_SCHEME; i++) {
    const c = decoded.charCodeAt(i);
    if (isIgnored(c)) continue;
    if (c === 0x3a) return /^[a-z][a-z0-9+.-]*$/i.test(scheme) ? scheme.toLowerCase() : undefined;
    scheme += decoded[i];
  }
  return undefined;
}

/** Whether `value` may stay in the URL attribute `attribute`. */
export function isSafeUrl(attribute: string, value: string): boolean {
  // Most links, checked without decoding.
  if (value.startsWith('https://') || value.startsWith('http://')) return true;
  const scheme = urlScheme(value);
  if (scheme === undefined || SAFE_SCHEMES.has(scheme)) return true;
  return scheme === 'cid' && LOADING_ATTRIBUTES.has(attribute.toLowerCase());
}

/** HTML whitespace: space, tab, LF, FF, CR. */
const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d;
/** Letters and `:` (`xlink:href`), the characters of URL_ATTRIBUTES' names. */
const isNameChar = (c: number) => (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x3a;
/** What an attribute name follows: the whitespace after a tag name or an attribute, a quote, `/`. */
const isBeforeName = (c: number) => isSpace(c) || c === 0x22 || c === 0x27 || c === 0x2f;

/** A URL attribute whose `=` is at `eq`: its name, its value and where the value's text lies. */
interface UrlAttribute {
  readonly name: string;
  readonly value: string;
  readonly start: number;
  readonly end: number;
  /** Where scanning goes on: past the value (and its closing quote). */
  readonly next: number;
}

/**
 * The URL attribute the `=` at `eq` belongs to, read as the HTML tokenizer reads attributes: a
 * name (after whitespace, a quote or `/`), optional whitespace around `=`, then a double-quoted,
 * single-quoted or unquoted value (up to whitespace or `>`). A quote never closed takes the rest
 * of the text. Undefined when the name is not a URL attribute's.
 */
function urlAttributeAt(html: string, eq: number): UrlAttribute | undefined {
  let i = eq - 1;
  while (i >= 0 && isSpace(html.charCodeAt(i))) i--;
  const nameEnd = i + 1;
  while (i >= 0 && nameEnd - i <= MAX_NAME + 1 && isNameChar(html.charCodeAt(i))) i--;
  const nameStart = i + 1;
  if (i < 0 || nameEnd - nameStart > MAX_NAME || !isBeforeName(html.charCodeAt(i))) return undefined;
  const name = html.slice(nameStart, nameEnd).toLowerCase();
  if (!URL_ATTRIBUTES.has(name)) return undefined;
  let j = eq + 1;
  while (j < html.length && isSpace(html.charCodeAt(j))) j++;
  const quote = html[j];
  if (quote === '"' || quote === "'") {
    const close = html.indexOf(quote, j + 1);
    const end = close === -1 ? html.length : close;
    return { name, value: html.slice(j + 1, end), start: j + 1, end, next: end + 1 };
  }
  let k = j;
  while (k < html.length && !isSpace(html.charCodeAt(k)) && html[k] !== '>') k++;
  return { name, value: html.slice(j, k), start: j, end: k, next: k };
}

/** Each URL attribute of `html` whose value is unsafe, in order. */
function* unsafeAttributes(html: string): Generator<UrlAttribute> {
  let at = html.indexOf('=');
  while (at !== -1) {
    const attr = urlAttributeAt(html, at);
    if (!attr) {
      at = html.indexOf('=', at + 1);
      continue;
    }
    if (!isSafeUrl(attr.name, attr.value)) yield attr;
    at = html.indexOf('=', attr.next);
  }
}

/**
 * The unsafe URL values the template's own text writes (`href="javascript:history.back()"`):
 * the author's, which `neutralizeUrls` leaves alone. Read once per template.
 */
export function literalUnsafeUrls(source: string): ReadonlySet<string> {
  const values = new Set<string>();
  for (const attr of unsafeAttributes(source)) values.add(attr.value);
  return values;
}

/**
 * `html` with each unsafe URL attribute value replaced by NEUTRAL_URL, except those the template
 * writes itself (`literals`, from `literalUnsafeUrls`); the same string when there is none. One
 * pass: each `=` is looked at once, and a value is skipped as a whole.
 */
export function neutralizeUrls(html: string, literals: ReadonlySet<string>): string {
  let out = '';
  let copied = 0;
  for (const attr of unsafeAttributes(html)) {
    if (literals.has(attr.value)) continue;
    out += html.slice(copied, attr.start) + NEUTRAL_URL;
    copied = attr.end;
  }
  return copied === 0 ? html : out + html.slice(copied);
}
