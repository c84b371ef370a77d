/**
 * Which language of the catalogue (catalogue.ts) a text is written in:
 * - a contact's `data.locale` (a BCP 47 tag, the interface's custom-data rule 4) chooses it for
 *   everything written to or for that contact: `pt-BR` is `pt-BR` if the catalogue has it, else
 *   `pt`, else English; an invalid tag, a non-string or no tag at all is English;
 * - where no contact is known (an error page for a link that names none), the browser's
 *   `Accept-Language`, best first by its q-values, with the same fallback per tag.
 */
import { CATALOGUE, DEFAULT_LANGUAGE, type Messages } from './catalogue';

/** Catalogue tags by lower case, for matching tags case-insensitively as BCP 47 says. */
const TAGS = new Map(Object.keys(CATALOGUE).map((tag) => [tag.toLowerCase(), tag]));

/** The catalogue's tag for `tag` (itself, or its shortest-prefix fallback), or undefined. */
function match(tag: string): string | undefined {
  let canonical: string;
  try {
    canonical = Intl.getCanonicalLocales(tag)[0] ?? '';
  } catch (error) {
    // Intl throws RangeError for a tag that is not well-formed BCP 47; it matches nothing.
    if (error instanceof RangeError) return undefined;
    throw error;
  }
  const parts = canonical.toLowerCase().split('-');
  for (let n = parts.length; n > 0; n--) {
    const found = TAGS.get(parts.slice(0, n).join('-'));
    if (found) return found;
  }
  return undefined;
}

/** The language of a contact's `data.locale` (any value): a catalogue tag, English when none fits. */
export function languageOf(locale: unknown): string {
  return (typeof locale === 'string' && match(locale)) || DEFAULT_LANGUAGE;
}

/** The language of an `Accept-Language` header: its best-ranked tag the catalogue has, else English. */
export function languageOfAcceptLanguage(header: string | undefined): string {
  if (!header) return DEFAULT_LANGUAGE;
  const ranked = header
    .split(',')
    .map((part, index) => {
      const [range = '', ...params] = part.trim().split(';');
      const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/i.exec(p)?.[1]).find((v) => v !== undefined);
      return { range: range.trim(), q: q === undefined ? 1 : Number(q), index };
    })
    .filter((r) => r.range !== '' && r.range !== '*' && Number.isFinite(r.q) && r.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index);
  for (const r of ranked) {
    const found = match(r.range);
    if (found) return found;
  }
  return DEFAULT_LANGUAGE;
}

/** The messages of a language the catalogue has (English for any other). */
export function messagesOf(language: string): Messages {
  return CATALOGUE[language] ?? (CATALOGUE[DEFAULT_LANGUAGE] as Messages);
}
