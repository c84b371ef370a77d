/**
 * Rendering's size limits, apart from the renderer: request schemas check them, and importing
 * them must not load liquidjs and html-to-text into a function's cold start.
 */

/** Longest template source accepted by one parse (characters). */
export const MAX_TEMPLATE_CHARS = 1_000_000;

/** Longest subject line (RFC 5322's line limit). */
export const MAX_SUBJECT_CHARS = 998;

/**
 * Most Liquid tokens (text runs, `{{ }}` outputs, `{% %}` tags) one template may have: the parse
 * budget counted in work. Every valid body a template or campaign may hold (256 KB) is under it:
 * the shortest valid tokens (`{{x}}` or `{%#%}`, then one character of text) make 87,382.
 */
export const MAX_TEMPLATE_TOKENS = 100_000;
