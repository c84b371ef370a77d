/**
 * Large templates through HTTP: the largest body a template may hold, made only of `{{x}}` tags,
 * saves with work counted in operations (each token parsed once, each character examined a
 * bounded number of times), and the parse gives the event loop back, so a `GET /config` sent
 * while it runs is answered first. A 1 MB `/v1/send` body of tags is over the parse budget: a 422
 * naming it, refused before it is tokenized, nothing sent.
 */
import { describe, expect, it } from 'vitest';
import { MAX_TEMPLATE_CHARS, MAX_TEMPLATE_TOKENS } from '../../shared/rendering/limits';
import { parseWork } from '../../shared/rendering/liquid';
import { MAX_TEMPLATE_BODY_BYTES } from '../../shared/templates/schemas';
import { type ApiResponse, useLocalRuntime } from './helpers/local';
import { pollUntil } from './helpers/wait';

const rt = useLocalRuntime();
const from = () => `news@${rt.senderDomain}`;

/** `{{x}}` repeated to at most `chars` characters. */
const tags = (chars: number) => '{{x}}'.repeat(Math.floor(chars / 5));

/**
 * Sends `request`, waits until a parse is seen in progress (started, not finished: only visible
 * to this poll if the parse gives the event loop back), then sends `GET /config`; returns both
 * responses in the order they were answered.
 */
async function configDuring(request: () => Promise<ApiResponse>) {
  const order: string[] = [];
  const started = parseWork.started;
  const big = request().then((res) => {
    order.push('big');
    return res;
  });
  await pollUntil(
    'a parse in progress',
    async () => (parseWork.started > started && parseWork.started > parseWork.finished ? true : undefined),
    { intervalMs: 1, last: () => ({ ...parseWork }) },
  );
  const config = await rt.api('GET', '/config', { key: null });
  order.push('config');
  return { big: await big, config, order };
}

describe('large templates', () => {
  it('saves a body of tags at the size limit, each token parsed once, answering GET /config meanwhile', async () => {
    const body = tags(MAX_TEMPLATE_BODY_BYTES);
    const count = body.length / 5;
    const before = { ...parseWork };
    const { big, config, order } = await configDuring(() =>
      rt.api('POST', '/templates', { body: { name: 'big', subject: 'Hi', body, from: from() } }),
    );
    expect(big.status, JSON.stringify(big.body).slice(0, 500)).toBe(201);
    expect(config.status).toBe(200);
    expect(order).toEqual(['config', 'big']);
    // The budget, in operations: two parses (subject, body); one token per tag and the subject's
    // one; at most 3 characters examined per character of text.
    expect(parseWork.started - before.started).toBe(2);
    expect(parseWork.tokens - before.tokens).toBe(count + 1);
    expect(parseWork.chars - before.chars).toBeLessThanOrEqual(3 * (body.length + 2));
    expect(parseWork.yields - before.yields).toBeGreaterThanOrEqual(Math.floor(count / 2_000));

    const saved = await rt.api('GET', `/templates/${big.body.id}`);
    expect(saved.body.body).toBe(body);
  });

  it('refuses a template body over its documented size with a 422, before parsing it', async () => {
    const started = parseWork.started;
    const res = await rt.api('POST', '/templates', {
      body: { name: 'too big', subject: 'Hi', body: tags(MAX_TEMPLATE_CHARS), from: from() },
    });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(JSON.stringify(res.body.error.errors)).toContain(
      `body must be at most ${MAX_TEMPLATE_BODY_BYTES} bytes`,
    );
    expect(parseWork.started).toBe(started);
  });

  it('refuses a 1 MB /v1/send body of tags over the parse budget with a 422, answering GET /config meanwhile', async () => {
    const body = tags(MAX_TEMPLATE_CHARS);
    const to = `big-${Date.now()}@example.org`;
    const before = { ...parseWork };
    const { big, config, order } = await configDuring(() =>
      rt.api('POST', '/v1/send', { body: { to, from: from(), subject: `Hi ${to}`, body } }),
    );
    expect(big.status).toBe(422);
    expect(big.body.error.code).toBe('VALIDATION_ERROR');
    expect(big.body.error.errors).toEqual([
      {
        field: 'body',
        code: 'template_too_large',
        message: expect.stringContaining(`at most ${MAX_TEMPLATE_TOKENS} Liquid tokens`),
      },
    ]);
    expect(config.status).toBe(200);
    expect(order).toEqual(['config', 'big']);
    // Refused once the translation met one tag too many: no token of it was parsed (the one
    // token is the subject's).
    expect(parseWork.tokens - before.tokens).toBe(1);
    expect(parseWork.chars - before.chars).toBeLessThanOrEqual(3 * body.length);
    expect(await rt.mails({ to })).toHaveLength(0);
  });
});
