/**
 * Parsing a template is linear in its text, counted in operations (never in time): characters the
 * syntax translation examines, elements moved by array shifts during liquidjs's parse, tokens
 * parsed, and the parse budget that refuses what is over it.
 */
import { Liquid } from 'liquidjs';
import { afterEach, describe, expect, it } from 'vitest';
import { AppError } from '../../../shared/errors';
import { compile, compileAll, compileAsync, render, TemplateTooLargeError } from '../../../shared/rendering';
import { MAX_TEMPLATE_TOKENS } from '../../../shared/rendering/limits';
import { parseWork, TOKENS_PER_SLICE } from '../../../shared/rendering/liquid';
import { type ScanMeter, toLiquid } from '../../../shared/rendering/syntax';

/** Characters examined translating `source`. */
function examined(source: string): number {
  const meter: ScanMeter = { chars: 0 };
  toLiquid(source, meter);
  return meter.chars;
}

/**
 * Elements moved by `Array.prototype.shift` while `run` runs: a shift moves every element after
 * the first (V8 does so for arrays past ~16,000 elements), so a parser that shifts one big token
 * array does N² of this work.
 */
function shiftedElements(run: () => void): number {
  const original = Array.prototype.shift;
  let moved = 0;
  Array.prototype.shift = function (this: unknown[]) {
    moved += Math.max(0, this.length - 1);
    return original.call(this);
  };
  try {
    run();
  } finally {
    Array.prototype.shift = original;
  }
  return moved;
}

let unique = 0;
/** A source no earlier test parsed (so the parse cache does not answer). */
const fresh = (source: string) => `<!--${unique++}-->${source}`;

describe('translation work', () => {
  const shapes: Record<string, (n: number) => string> = {
    'outputs only': (n) => '{{x}}'.repeat(n),
    'outputs with a tag at the end': (n) => `${'{{x}}'.repeat(n)}{% if a %}{% endif %}`,
    'tags only': (n) => '{% if a %}b{% endif %}'.repeat(n),
    'rewritten names and defaults': (n) => '<p>{{first name ?? there}}, {{data[home town]}}</p>\n'.repeat(n),
    'raw blocks and text': (n) => 'text {% raw %}{{a b}}{% endraw %} {{ c }}'.repeat(n),
  };

  for (const [shape, make] of Object.entries(shapes)) {
    it(`examines each character a bounded number of times: ${shape}`, () => {
      const small = make(2_000);
      const large = make(20_000);
      const perChar = examined(large) / large.length;
      // 10x the tags is 10x the work (a rescan per tag made it 100x).
      expect(examined(large) / examined(small)).toBeLessThanOrEqual(10.5);
      expect(perChar).toBeLessThanOrEqual(5);
    });
  }

  it('counts the tags it met', () => {
    const meter: ScanMeter = { chars: 0 };
    toLiquid('{{a}} {% if b %}{{c d}}{% endif %} {% raw %}{{e}}{% endraw %}', meter);
    expect(meter.tags).toBe(5);
  });
});

describe('parse work', () => {
  afterEach(() => {
    expect(Array.prototype.shift.name).toBe('shift');
  });

  it('moves no token array element per token (liquidjs shifts one array otherwise)', () => {
    const n = 40_000;
    const moved = shiftedElements(() => compile(fresh('{{x}} '.repeat(n)), 'html'));
    // engine.parse of the same text shifts its 80,000-token array 80,000 times: ~3.2e9 moves.
    expect(moved).toBeLessThanOrEqual(2 * n);
  });

  it('parses every token once: N and 10N tokens', async () => {
    const before = parseWork.tokens;
    await compileAsync(fresh('{{x}}a'.repeat(5_000)), 'html');
    const small = parseWork.tokens - before;
    await compileAsync(fresh('{{x}}a'.repeat(45_000)), 'html');
    const large = parseWork.tokens - before - small;
    // The comment `fresh` puts first is one more text token.
    expect(small).toBe(10_001);
    expect(large).toBe(90_001);
  });

  it('gives the event loop back while parsing a large template', async () => {
    const source = fresh('<p>{{x}}</p>'.repeat(40_000));
    const yields = parseWork.yields;
    let ranMeanwhile = false;
    let finished = false;
    setImmediate(() => {
      ranMeanwhile = !finished;
    });
    const compiled = await compileAsync(source, 'html');
    finished = true;
    expect(ranMeanwhile).toBe(true);
    expect(parseWork.yields - yields).toBeGreaterThanOrEqual(Math.floor(80_001 / TOKENS_PER_SLICE) - 1);
    expect(compiled.templates).toHaveLength(80_001);
  });

  it('parses each source once and answers later compiles from the cache', async () => {
    const source = fresh('{{ a }} and {{ b }}');
    const first = compile(source, 'html');
    const started = parseWork.started;
    expect(compile(source, 'html')).toBe(first);
    expect(await compileAsync(source, 'html')).toBe(first);
    expect(parseWork.started).toBe(started);
    // The same text as a subject is another template (no escaping).
    expect(compile(source, 'text')).not.toBe(first);
  });
});

describe('parse budget', () => {
  it('parses a template of exactly the budget and refuses one token more', () => {
    const half = MAX_TEMPLATE_TOKENS / 2;
    expect(() => compile(fresh(`${'{{x}}a'.repeat(half - 1)}{{x}}`), 'html')).not.toThrow();
    expect(() => compile(fresh('{{x}}a'.repeat(half)), 'html')).toThrow(TemplateTooLargeError);
  });

  it('refuses a text with more tags than the budget before tokenizing it', () => {
    const tokens = parseWork.tokens;
    const started = parseWork.started;
    expect(() => compile(fresh('{{x}}'.repeat(MAX_TEMPLATE_TOKENS + 1)), 'html')).toThrow(
      /has more than 100000 \{\{ \}\} outputs and \{% %\} tags; at most 100000 Liquid tokens/,
    );
    expect(parseWork.started).toBe(started + 1);
    expect(parseWork.tokens).toBe(tokens);
  });

  it('is a 422 naming the field, code template_too_large', () => {
    try {
      compileAll([
        { field: 'subject', source: 'Hi', kind: 'text' },
        { field: 'body', source: fresh('{{x}}'.repeat(MAX_TEMPLATE_TOKENS + 1)), kind: 'html' },
      ]);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(AppError);
      const e = error as AppError;
      expect(e.statusCode).toBe(422);
      expect(e.message).toBe('The template is too large to parse');
      expect(e.extra.errors).toEqual([
        {
          field: 'body',
          message: expect.stringMatching(/^Template too large: /),
          code: 'template_too_large',
        },
      ]);
    }
  });
});

describe('the token queue parses as liquidjs does', () => {
  const plain = new Liquid({ ownPropertyOnly: true });
  const sources = [
    '{% if a %}A{% elsif b %}B{% else %}C{% endif %}',
    '{% unless a %}U{% endunless %}',
    '{% for i in list %}{{ i }}{% if i == 2 %}{% break %}{% endif %}{% else %}none{% endfor %}',
    '{% for i in list %}{% if i == 1 %}{% continue %}{% endif %}{{ forloop.index }}{% endfor %}',
    '{% case a %}{% when 1 %}one{% when 2, 3 %}two{% else %}other{% endcase %}',
    '{% capture c %}[{{ a }}]{% endcapture %}{{ c }}',
    '{% assign x = a | plus: 1 %}{{ x }}{% increment n %}{% increment n %}{% decrement m %}',
    '{% for i in list %}{% cycle "x", "y" %}{% endfor %}',
    '{% tablerow i in list cols:2 %}{{ i }}{% endtablerow %}',
    '{% raw %}{{ a }}{% endraw %}{% comment %}{{ no }}{% endcomment %}{% # inline %}',
    '{% liquid\n  assign y = 3\n  echo y\n%}',
    '  {{- a -}}  {%- if true -%}  t  {%- endif -%}  ',
    'a \n {%- raw -%} \n {{- a -}} \n {% endraw -%} \n b {{- a }}\n\n{{ a -}}\n\nc',
    '{% for i in list %}{% for j in list %}{{ i }}{{ j }}{% endfor %}{% endfor %}',
  ];
  const vars = { a: 1, b: 2, list: [1, 2, 3] };

  it('renders every tag the same', async () => {
    for (const source of sources) {
      // increment and decrement write to the variables: each render gets its own copy.
      expect(await render(compile(source, 'text'), structuredClone(vars)), source).toBe(
        await plain.render(plain.parse(source), structuredClone(vars)),
      );
    }
  });

  it('reports the same parse errors', () => {
    for (const source of [
      '{% if a %}x',
      '{% for i in list %}',
      '{{ a',
      '{% case a %}{% when %}',
      '{% nope %}',
    ]) {
      let expected = '';
      try {
        plain.parse(source);
      } catch (error) {
        expected = (error as Error).message;
      }
      expect(expected, source).not.toBe('');
      expect(() => compile(source, 'text'), source).toThrow(expected);
    }
  });
});
