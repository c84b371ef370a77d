import { describe, expect, it } from 'vitest';
import { rewriteExpression, toLiquid } from '../../../shared/rendering/syntax';

describe('toLiquid', () => {
  it('rewrites defaults into the fallback filter, quoting bare words', () => {
    expect(toLiquid('{{name ?? default}}')).toBe('{{ name | fallback: "default" }}');
    expect(toLiquid('{{ name ?? "Dear friend" }}')).toBe('{{ name | fallback: "Dear friend" }}');
    expect(toLiquid("{{ name ?? 'it''s' }}")).toBe(`{{ name | fallback: "'it''s'" }}`);
    expect(toLiquid('{{ count ?? 0 }}')).toBe('{{ count | fallback: 0 }}');
    expect(toLiquid('{{ n ?? -1.5 }}')).toBe('{{ n | fallback: -1.5 }}');
    expect(toLiquid('{{ name ?? dear customer }}')).toBe('{{ name | fallback: "dear customer" }}');
    expect(toLiquid('{{ name ?? }}')).toBe('{{ name | fallback: "" }}');
    expect(toLiquid('{{ name ?? "x" | upcase }}')).toBe('{{ name | fallback: "x" | upcase }}');
    expect(toLiquid('{{ name ?? a|b }}')).toBe('{{ name | fallback: "a" |b }}');
  });

  it('turns names with spaces into quoted bracket lookups', () => {
    expect(toLiquid('{{first name}}')).toBe('{{ ["first name"] }}');
    expect(toLiquid('{{ data[first name] | upcase }}')).toBe('{{ data["first name"] | upcase }}');
    expect(toLiquid('{{ profile.home town }}')).toBe('{{ profile["home town"] }}');
    expect(toLiquid('{{ first name ?? there }}')).toBe('{{ ["first name"] | fallback: "there" }}');
    expect(toLiquid('{{ prénom }}')).toBe('{{ ["prénom"] }}');
    // Quotes stay structural: such names are written data["it's me"], plain Liquid.
    expect(toLiquid(`{{ it's me }}`)).toBe(`{{ it's me }}`);
  });

  it('keeps plain Liquid byte for byte', () => {
    for (const source of [
      '{{name}}',
      '{{ profile.tier }}',
      '{{ items[0].name }}',
      '{{ items[i] }}',
      '{{ data["plan"] }}',
      "{{ 'now' | date: '%Y' }}",
      '{{ x | default: "a b" }}',
      '{{ (1..3) | join: "," }}',
      '{{- name -}}',
      '{{ "literal text" }}',
      '{{ 42 }}',
      '{{ forloop.index0 }}',
      '{{ user.first-name }}',
    ]) {
      expect(toLiquid(source), source).toBe(source);
    }
  });

  it('keeps whitespace control markers', () => {
    expect(toLiquid('a {{- first name -}} b')).toBe('a {{- ["first name"] -}} b');
  });

  it('leaves tags, raw blocks and comments alone', () => {
    expect(toLiquid('{% if first == "{{x y}}" %}{{a b}}{% endif %}')).toBe(
      '{% if first == "{{x y}}" %}{{ ["a b"] }}{% endif %}',
    );
    expect(toLiquid('{% raw %}{{first name}}{% endraw %}{{first name}}')).toBe(
      '{% raw %}{{first name}}{% endraw %}{{ ["first name"] }}',
    );
    expect(toLiquid('{%- comment -%}{{a b}}{%- endcomment -%}x')).toBe(
      '{%- comment -%}{{a b}}{%- endcomment -%}x',
    );
  });

  it('does not look for the end of an output inside quotes', () => {
    expect(toLiquid('{{ "}}" | append: first }}')).toBe('{{ "}}" | append: first }}');
  });

  it('leaves unterminated or unparseable input for Liquid to report', () => {
    expect(toLiquid('Hi {{ name')).toBe('Hi {{ name');
    expect(toLiquid('{% if x')).toBe('{% if x');
    expect(toLiquid('{{ a == b }}')).toBe('{{ a == b }}');
    expect(rewriteExpression('a "b" c')).toBeUndefined();
    // A name holding both quote kinds cannot be written as a Liquid string.
    expect(toLiquid(`{{ a"b'c d }}`)).toBe(`{{ a"b'c d }}`);
  });
});
