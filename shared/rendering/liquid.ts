/**
 * Liquid for templates, sandboxed: no file system (no include, render or layout tag, no loader),
 * only own properties of the data are readable, unknown variables and filters render empty,
 * and each render is bounded in time, allocations and output size.
 *
 * Two engines: HTML bodies escape every output by default (`| raw` opts out, for trusted
 * values); subjects and other plain text render unescaped.
 */
import { Drop, Liquid, Output, type Template } from 'liquidjs';
import { MAX_TEMPLATE_CHARS } from './limits';
import { toLiquid } from './syntax';

/** Wall-clock budget of one render. */
export const RENDER_TIME_LIMIT_MS = 1_000;
/** liquidjs's allocation budget of one render (array and string building). */
export const RENDER_MEMORY_LIMIT = 10_000_000;
/** Largest rendered output (UTF-16 units; about 2 MB of HTML). */
export const MAX_RENDERED_CHARS = 2 * 1024 * 1024;

export type ContentKind = 'html' | 'text';

/** Why a template cannot be parsed, with Liquid's own message. */
export class TemplateSyntaxError extends Error {
  override readonly name = 'TemplateSyntaxError';
}

/** Why a render stopped (a limit was hit, or Liquid failed at render time). */
export class RenderError extends Error {
  override readonly name = 'RenderError';
}

function createEngine(kind: ContentKind): Liquid {
  const engine = new Liquid({
    ownPropertyOnly: true,
    strictFilters: false,
    strictVariables: false,
    // An in-memory (empty) template map replaces the file system for any lookup.
    templates: {},
    parseLimit: MAX_TEMPLATE_CHARS,
    renderLimit: RENDER_TIME_LIMIT_MS,
    memoryLimit: RENDER_MEMORY_LIMIT,
    ...(kind === 'html' ? { outputEscape: 'escape' as const } : {}),
  });
  // Tags that load other templates: removed, so using one is a parse error.
  for (const name of ['include', 'render', 'layout']) delete engine.tags[name];
  // `{{x ?? y}}` compiles to this: unlike `default`, it keeps false, 0 and "".
  engine.registerFilter('fallback', (value: unknown, fallback: unknown) => {
    // The `nil` literal arrives as a drop whose value is null.
    const plain = value instanceof Drop ? value.valueOf() : value;
    return plain === undefined || plain === null ? fallback : value;
  });
  return engine;
}

let engines: Record<ContentKind, Liquid> | undefined;

/** The engine of `kind`; both are built on first use, so code that renders nothing builds none. */
function engine(kind: ContentKind): Liquid {
  if (!engines) engines = { html: createEngine('html'), text: createEngine('text') };
  return engines[kind];
}

/** A parsed template, ready to render many times. */
export interface CompiledTemplate {
  readonly kind: ContentKind;
  readonly templates: Template[];
  /** The source as written (before Sesame's variable syntax was rewritten). */
  readonly source: string;
}

/** Parses a template; throws TemplateSyntaxError with Liquid's message. */
export function compile(source: string, kind: ContentKind): CompiledTemplate {
  try {
    return { kind, templates: engine(kind).parse(toLiquid(source)), source };
  } catch (error) {
    throw new TemplateSyntaxError(liquidMessage(error));
  }
}

/** Renders with `variables`; throws RenderError when a limit is hit or Liquid fails. */
export async function render(
  template: CompiledTemplate,
  variables: Record<string, unknown>,
): Promise<string> {
  let output: unknown;
  try {
    output = await engine(template.kind).render(template.templates, variables);
  } catch (error) {
    throw new RenderError(liquidMessage(error));
  }
  const text = String(output ?? '');
  if (text.length > MAX_RENDERED_CHARS) {
    throw new RenderError(`The rendered ${template.kind} exceeds ${MAX_RENDERED_CHARS} characters`);
  }
  return text;
}

function liquidMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The parts of a template made only of literal text and output tags (`{{ }}`, no `{% %}` tag):
 * literal strings and output templates in order, so that their rendered values can be known one
 * by one; undefined for any template with tags.
 */
export function outputParts(template: CompiledTemplate): Array<string | Template> | undefined {
  const parts: Array<string | Template> = [];
  for (const t of template.templates) {
    if (t instanceof Output) parts.push(t);
    else if (t.constructor.name === 'HTML' && typeof (t as { str?: unknown }).str === 'string')
      parts.push((t as unknown as { str: string }).str);
    else return undefined;
  }
  return parts;
}

/** Renders one output template of `template` synchronously; throws RenderError like `render`. */
export function renderOutput(
  template: CompiledTemplate,
  output: Template,
  variables: Record<string, unknown>,
): string {
  try {
    return String(engine(template.kind).renderSync([output], variables) ?? '');
  } catch (error) {
    throw new RenderError(liquidMessage(error));
  }
}
