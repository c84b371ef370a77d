/**
 * Liquid for templates, sandboxed: no file system (no include, render or layout tag, no loader),
 * only own properties of the data are readable, unknown variables and filters render empty,
 * and each render is bounded in time, allocations and output size.
 *
 * Two engines: HTML bodies escape every output by default (`| raw` opts out, for trusted
 * values); subjects and other plain text render unescaped.
 */
import { Drop, Liquid, Output, Parser, type Template, Tokenizer, type TopLevelToken } from 'liquidjs';
import { MAX_TEMPLATE_CHARS, MAX_TEMPLATE_TOKENS } from './limits';
import { runSteps, type ScanMeter, translate } from './syntax';

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

/** Why a template is refused before parsing it: it is over a parse budget (characters, tokens). */
export class TemplateTooLargeError extends TemplateSyntaxError {}

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

/** Top-level tokens parsed between two yields to the event loop (see `compileAsync`). */
export const TOKENS_PER_SLICE = 2_000;

/** Work of the parses this process ran (read by tests and benches; never reset). */
export interface ParseWork {
  /** Parses started and parses finished (successfully or not). */
  started: number;
  finished: number;
  /** Characters the syntax translation examined. */
  chars: number;
  /** Liquid tokens parsed. */
  tokens: number;
  /** Times an asynchronous parse gave the event loop back before going on. */
  yields: number;
}

export const parseWork: Readonly<ParseWork> = { started: 0, finished: 0, chars: 0, tokens: 0, yields: 0 };
const work = parseWork as ParseWork;

/**
 * liquidjs's parser takes tokens off the front of one array (`tokens.shift()`, in its top-level
 * loop and in every block tag). V8 moves an array of more than about 16,000 elements on each
 * shift, so a template of N tokens cost N² (200,000 tags: minutes). This queue is what those
 * loops use instead (they only call `shift()` and read `length`): each shift is O(1).
 */
class TokenQueue {
  private at = 0;
  constructor(private readonly tokens: readonly TopLevelToken[]) {}
  get length(): number {
    return this.tokens.length - this.at;
  }
  shift(): TopLevelToken | undefined {
    return this.at < this.tokens.length ? this.tokens[this.at++] : undefined;
  }
}

/**
 * Tokens read one at a time (`Tokenizer.readTopLevelToken`, so that reading can pause), put
 * through liquidjs's whitespace control (`{{-`, `-%}`): its tokenizer applies that only at the end
 * of `readTopLevelTokens`, which this replays the tokens through.
 */
class WhitespaceControl extends Tokenizer {
  constructor(private readonly replayed: readonly TopLevelToken[]) {
    super('');
    this.N = replayed.length;
  }
  override readTopLevelToken(): TopLevelToken {
    return this.replayed[this.p++]!;
  }
}

/**
 * The parse of one source, as steps: translate, tokenize, then parse the top-level tokens, each
 * yielding after every TOKENS_PER_SLICE tags or tokens and refusing what is over the budget.
 * `compile` runs it through, `compileAsync` gives the event loop back at each yield. Work is
 * linear in the text: one pass of the translation, one of liquidjs's tokenizer, one parse of each
 * token.
 */
function* parseSteps(source: string, kind: ContentKind, maxTokens: number): Generator<void, Parsed> {
  work.started++;
  try {
    const meter: ScanMeter = { chars: 0 };
    let liquid: string | undefined;
    try {
      liquid = yield* translate(source, meter, TOKENS_PER_SLICE, maxTokens);
    } finally {
      work.chars += meter.chars;
    }
    // Each tag is at least one token: what has more tags is refused before it is tokenized.
    if (liquid === undefined) {
      throw new TemplateTooLargeError(
        `The template has more than ${maxTokens} {{ }} outputs and {% %} tags; at most ` +
          `${maxTokens} Liquid tokens (outputs, tags and the text between them) can be parsed`,
      );
    }
    if (liquid.length > MAX_TEMPLATE_CHARS) {
      throw new TemplateTooLargeError(
        `The template is ${liquid.length} characters long; at most ${MAX_TEMPLATE_CHARS} can be parsed`,
      );
    }
    const e = engine(kind);
    const tokenizer = new Tokenizer(
      liquid,
      e.options.operators,
      undefined,
      undefined,
      e.options.groupedExpressions,
    );
    const read: TopLevelToken[] = [];
    while (tokenizer.p < tokenizer.N) {
      try {
        read.push(tokenizer.readTopLevelToken(e.options));
      } catch (error) {
        throw new TemplateSyntaxError(liquidMessage(error));
      }
      if (read.length > maxTokens) {
        throw new TemplateTooLargeError(
          `The template has more than ${maxTokens} Liquid tokens (outputs, tags and the text between ` +
            `them); at most ${maxTokens} can be parsed`,
        );
      }
      if (read.length % TOKENS_PER_SLICE === 0) yield;
    }
    const tokens = new WhitespaceControl(read).readTopLevelTokens(e.options);
    const parser = new Parser(e);
    const queue = new TokenQueue(tokens);
    const remaining = queue as unknown as TopLevelToken[];
    const templates: Template[] = [];
    let counted = 0;
    while (queue.length > 0) {
      const token = queue.shift()!;
      try {
        templates.push(parser.parseToken(token, remaining));
      } catch (error) {
        throw new TemplateSyntaxError(liquidMessage(error));
      }
      // A block tag takes its whole body off the queue: count what was consumed, not the loop.
      const consumed = tokens.length - queue.length;
      if (consumed - counted >= TOKENS_PER_SLICE && queue.length > 0) {
        work.tokens += consumed - counted;
        counted = consumed;
        yield;
      }
    }
    work.tokens += tokens.length - counted;
    return { compiled: { kind, templates, source }, tokens: tokens.length };
  } finally {
    work.finished++;
  }
}

/**
 * Parsed templates by kind and source, most recently used last: a campaign job, a workflow step
 * or a `/v1/send` with a stored template parses the same text for every message otherwise.
 * Bounded by the tokens held (a token's parsed form is a few hundred bytes).
 */
interface Parsed {
  readonly compiled: CompiledTemplate;
  readonly tokens: number;
}

const cache = new Map<string, Parsed>();
let cachedTokens = 0;
/** Most tokens the parse cache holds, over all its entries. */
export const PARSE_CACHE_TOKENS = 2 * MAX_TEMPLATE_TOKENS;

const cacheKey = (source: string, kind: ContentKind) => `${kind}:${source}`;

function cached(source: string, kind: ContentKind): CompiledTemplate | undefined {
  const key = cacheKey(source, kind);
  const hit = cache.get(key);
  if (hit) {
    cache.delete(key);
    cache.set(key, hit);
  }
  return hit?.compiled;
}

function remember(parsed: Parsed): CompiledTemplate {
  const { compiled, tokens } = parsed;
  const key = cacheKey(compiled.source, compiled.kind);
  // Over the budget only when a caller lifted it: never answered from the cache to one that did not.
  if (tokens > MAX_TEMPLATE_TOKENS || cache.has(key)) return compiled;
  cache.set(key, parsed);
  cachedTokens += tokens;
  for (const [oldKey, old] of cache) {
    if (cachedTokens <= PARSE_CACHE_TOKENS) break;
    cache.delete(oldKey);
    cachedTokens -= old.tokens;
  }
  return compiled;
}

/**
 * Parses a template; throws TemplateSyntaxError with Liquid's message (TemplateTooLargeError
 * when it is over the parse budget). Synchronous: for text that a request can make large, use
 * `compileAsync`.
 */
export function compile(source: string, kind: ContentKind): CompiledTemplate {
  return cached(source, kind) ?? remember(runSteps(parseSteps(source, kind, MAX_TEMPLATE_TOKENS)));
}

/**
 * `compile`, giving the event loop back every TOKENS_PER_SLICE tokens, so that other requests
 * are answered while a large template is parsed. `maxTokens` is the parse budget (a bench lifts
 * it to measure beyond it).
 */
export async function compileAsync(
  source: string,
  kind: ContentKind,
  maxTokens = MAX_TEMPLATE_TOKENS,
): Promise<CompiledTemplate> {
  const hit = cached(source, kind);
  if (hit) return hit;
  const steps = parseSteps(source, kind, maxTokens);
  for (;;) {
    const step = steps.next();
    if (step.done) return remember(step.value);
    work.yields++;
    await new Promise<void>((resolve) => setImmediate(resolve));
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
