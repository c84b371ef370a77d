/**
 * Template rendering (docs/sending.md, "Rendering" and "Content
 * types"): what variables a message sees, how subjects and bodies are rendered, and the
 * plain-text alternative of every HTML body.
 */
import { convert } from 'html-to-text';
import type { ContactData } from '../contacts/data';
import { type FieldIssue, validationError } from '../errors';
import { MAX_SUBJECT_CHARS } from './limits';
import { type CompiledTemplate, type ContentKind, compile, render, TemplateSyntaxError } from './liquid';

export { type CompiledTemplate, compile, RenderError, render, TemplateSyntaxError } from './liquid';

/** The signed links every message can use. */
export interface SubscriptionLinks {
  readonly unsubscribeUrl: string;
  readonly subscribeUrl: string;
  readonly manageUrl: string;
}

/**
 * The variables of one message: the contact's data merged with the request's data (stored and
 * one-off values; see `mergeForRender`), also reachable as `data` for bracket lookups
 * (`data[first name]`), plus `email`, `id` and the signed links, which win over any data key.
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
 * `invalid_liquid`, Liquid's message). Templates are checked when saved, not at send time.
 */
export function compileAll(sources: readonly TemplateSource[]): CompiledTemplate[] {
  const issues: FieldIssue[] = [];
  const compiled: CompiledTemplate[] = [];
  for (const s of sources) {
    try {
      compiled.push(compile(s.source, s.kind));
    } catch (error) {
      if (!(error instanceof TemplateSyntaxError)) throw error;
      issues.push({ field: s.field, message: `Invalid Liquid: ${error.message}`, code: 'invalid_liquid' });
    }
  }
  if (issues.length > 0) throw validationError(issues, 'The template is not valid Liquid');
  return compiled;
}
