import { describe, expect, it } from 'vitest';
import { AppError } from '../../../shared/errors';
import {
  compile,
  compileAll,
  htmlToText,
  RenderError,
  render,
  renderSubject,
  TemplateSyntaxError,
  templateVariables,
} from '../../../shared/rendering';
import { MAX_RENDERED_CHARS } from '../../../shared/rendering/liquid';

const html = (source: string, vars: Record<string, unknown> = {}) => render(compile(source, 'html'), vars);
const text = (source: string, vars: Record<string, unknown> = {}) => render(compile(source, 'text'), vars);

describe('rendering', () => {
  it('applies a default only to missing or null values', async () => {
    const vars = { nothing: null, zero: 0, no: false, blank: '', name: 'Ann', deep: { v: null } };
    expect(
      await text(
        '{{missing ?? x}}|{{nothing ?? x}}|{{deep.v ?? x}}|{{nil ?? x}}|{{zero ?? x}}|{{no ?? x}}|{{blank ?? x}}|{{name ?? x}}',
        vars,
      ),
    ).toBe('x|x|x|x|0|false||Ann');
  });

  it('renders unknown variables and filters as empty instead of failing', async () => {
    expect(await text('[{{ nope }}][{{ a.b.c }}][{{ "x" | no_such_filter }}]')).toBe('[][][x]');
  });

  it('reads own properties only', async () => {
    const vars = { s: 'abc', o: {} };
    expect(
      await text('[{{ s.constructor }}][{{ o.__proto__ }}][{{ o.toString }}][{{ o.hasOwnProperty }}]', vars),
    ).toBe('[][][][]');
  });

  it('escapes outputs in HTML unless | raw, and never in text', async () => {
    const vars = { v: `<img src=x onerror="alert('1')">&` };
    expect(await html('{{ v }}', vars)).toBe('&lt;img src=x onerror=&#34;alert(&#39;1&#39;)&#34;&gt;&amp;');
    expect(await html('{{ v | raw }}', vars)).toBe(vars.v);
    expect(await text('{{ v }}', vars)).toBe(vars.v);
  });

  it('refuses include, render and layout at parse time', () => {
    for (const source of ['{% include "a" %}', '{% render "a" %}', '{% layout "a" %}']) {
      expect(() => compile(source, 'html'), source).toThrow(TemplateSyntaxError);
    }
  });

  it('bounds render time and allocations', async () => {
    await expect(text('{% for i in (1..100000000) %}{% endfor %}')).rejects.toThrow(RenderError);
    await expect(
      text('{% for a in (1..3000) %}{% for b in (1..3000) %}{% assign x = b %}{% endfor %}{% endfor %}'),
    ).rejects.toThrow(RenderError);
  }, 10_000);

  it('bounds the rendered size', async () => {
    const big = 'x'.repeat(MAX_RENDERED_CHARS / 2 + 1);
    await expect(text('{{ v }}{{ v }}', { v: big })).rejects.toThrow(/exceeds/);
  });

  it('strips CR and LF from subjects and cuts them to 998 characters', async () => {
    const subject = compile('Hi {{ v }}', 'text');
    expect(await renderSubject(subject, { v: 'a\r\nBcc: x@y.z\nc' })).toBe('Hi a Bcc: x@y.z c');
    expect((await renderSubject(subject, { v: 'y'.repeat(2000) })).length).toBe(998);
  });

  it('lists the fields that are not valid Liquid in one 422', () => {
    try {
      compileAll([
        { field: 'subject', source: 'ok {{ a }}', kind: 'text' },
        { field: 'body', source: '{% if %}', kind: 'html' },
      ]);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).statusCode).toBe(422);
      expect((error as AppError).extra.errors).toEqual([
        { field: 'body', message: expect.stringMatching(/^Invalid Liquid: /), code: 'invalid_liquid' },
      ]);
    }
  });
});

describe('templateVariables', () => {
  it('exposes data at the top and as data, with the service variables winning', async () => {
    const vars = templateVariables({
      data: { 'first name': 'Ann', email: 'spoof', tier: 'gold' },
      email: 'ann@example.org',
      contactId: 'c1',
      links: { unsubscribeUrl: 'u', subscribeUrl: 's', manageUrl: 'm' },
    });
    expect(
      await text(
        '{{first name}}|{{data[first name]}}|{{tier}}|{{email}}|{{id}}|{{unsubscribeUrl}}{{subscribeUrl}}{{manageUrl}}',
        vars,
      ),
    ).toBe('Ann|Ann|gold|ann@example.org|c1|usm');
  });
});

describe('htmlToText', () => {
  it('keeps text and link targets, drops images and markup', () => {
    const out = htmlToText(
      '<h1>Title</h1><p>Hello <b>Ann</b>, <a href="https://x.example/a">read</a>.</p><img src="a.png">',
    );
    expect(out).toContain('TITLE');
    expect(out).toContain('Hello Ann, read [https://x.example/a].');
    expect(out).not.toContain('<');
    expect(out).not.toContain('a.png');
  });
});
