/**
 * Template rendering (docs/sending.md, "Rendering" and "Content
 * types"): what variables a message sees, how subjects and bodies are rendered, and the
 * plain-text alternative of every HTML body.
 */
import { convert } from 'html-to-text';
import type { ContactData } from '../contacts/data';
import { type FieldIssue, validationError } from '../errors';
import { languageOf } from '../i18n/locale';
import { MAX_SUBJECT_CHARS } from './limits';
import {
  type CompiledTemplate,
  type ContentKind,
  compile,
  compileAsync,
  render,
  TemplateSyntaxError,
  TemplateTooLargeError,
} from './liquid';

export {
  type CompiledTemplate,
  compile,
  compileAsync,
  RenderError,
  render,
  TemplateSyntaxError,
  TemplateTooLargeError,
} from './liquid';

/** The signed links every message can use. */
export interface SubscriptionLinks {
  readonly unsubscribeUrl: string;
  readonly subscribeUrl: string;
  readonly manageUrl: string;
}

/**
 * The variables of one message: the contact's data merged with the request's data (stored and
 * one-off values; see `mergeForRender`), also reachable as `data` for bracket lookups
 * (`data[first name]`), plus `email`, `id`, the signed links and `locale`, which win over any data
 * key. `locale` is the language Sesame writes the message's own texts in (its footer, the pages
 * its links open): `data.locale` matched to the catalogue (`fr-CA` is `fr`; none, an invalid tag
 * or a language not shipped is `en`, shared/i18n); the stored tag stays `data.locale`.
 */
export function templateVariables(input: {
  readonly data: ContactData;
  readonly email: string;
  readonly contactId: string;
  readonly links: SubscriptionLinks;
}): Record<string, unknown> {
  return {
    ...input.data,
    data: input.data,
    email: input.email,
    id: input.contactId,
    unsubscribeUrl: input.links.unsubscribeUrl,
    subscribeUrl: input.links.subscribeUrl,
    manageUrl: input.links.manageUrl,
    locale: languageOf(input.data.locale),
  };
}

/**
 * Renders a subject: plain text (no HTML escaping), CR, LF and NUL replaced so a value can never
 * start a new header, cut to the line limit.
 */
export async function renderSubject(template: CompiledTemplate, variables: Record<string, unknown>) {
  const text = await render(template, variables);
  return text.replace(/[\r\n\0]+/g, ' ').slice(0, MAX_SUBJECT_CHARS);
}

/** The plain-text alternative of an HTML body. */
export function htmlToText(html: string, wordwrap: number | false = TEXT_LINE_LENGTH): string {
  return convert(html, {
    wordwrap,
    selectors: [
      { selector: 'a', options: { hideLinkHrefIfSameAsText: true } },
      { selector: 'img', format: 'skip' },
    ],
  });
}

/** Line length the plain-text alternative is wrapped at. */
export const TEXT_LINE_LENGTH = 78;

export interface TemplateSource {
  /** Field path reported on a syntax error (`subject`, `body`). */
  readonly field: string;
  readonly source: string;
  readonly kind: ContentKind;
}

/**
 * Parses every source, or throws one 422 naming each field that is not valid Liquid (code
 * `invalid_liquid`, Liquid's message) or is over the parse budget (code `template_too_large`).
 * Templates are checked when saved, not at send time.
 */
export function compileAll(sources: readonly TemplateSource[]): CompiledTemplate[] {
  return settle(sources.map((s) => attempt(s, () => compile(s.source, s.kind))));
}

/** `compileAll`, parsing with `compileAsync`: other requests are answered meanwhile. */
export async function compileAllAsync(sources: readonly TemplateSource[]): Promise<CompiledTemplate[]> {
  const attempts: Attempt[] = [];
  for (const s of sources) {
    try {
      attempts.push(await compileAsync(s.source, s.kind));
    } catch (error) {
      attempts.push(issueOf(s, error));
    }
  }
  return settle(attempts);
}

type Attempt = CompiledTemplate | FieldIssue;

function attempt(s: TemplateSource, run: () => CompiledTemplate): Attempt {
  try {
    return run();
  } catch (error) {
    return issueOf(s, error);
  }
}

/** The 422 issue of a parse failure; anything other than a template error is rethrown. */
function issueOf(s: TemplateSource, error: unknown): FieldIssue {
  if (error instanceof TemplateTooLargeError)
    return { field: s.field, message: `Template too large: ${error.message}`, code: 'template_too_large' };
  if (error instanceof TemplateSyntaxError)
    return { field: s.field, message: `Invalid Liquid: ${error.message}`, code: 'invalid_liquid' };
  throw error;
}

function settle(attempts: readonly Attempt[]): CompiledTemplate[] {
  const issues = attempts.filter((a): a is FieldIssue => 'code' in a);
  if (issues.length === 0) return attempts as CompiledTemplate[];
  const tooLarge = issues.every((i) => i.code === 'template_too_large');
  throw validationError(
    issues,
    tooLarge ? 'The template is too large to parse' : 'The template is not valid Liquid',
  );
}
