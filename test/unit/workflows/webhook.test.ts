/**
 * The WEBHOOK step's call (shared/workflows/webhook.ts): Liquid rendering, signed requests to a
 * real local server (allowed as 127.0.0.1), retries, and the SSRF refusals that are not retried.
 */
import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { parseEnv, toAppConfig } from '../../../shared/config/env';
import type { WebhookConfig } from '../../../shared/workflows/model';
import {
  type CallWebhookOptions,
  callWebhook,
  renderWebhook,
  signatureHeader,
  verifySignature,
  WebhookConfigError,
} from '../../../shared/workflows/webhook';

interface Seen {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

const servers: Server[] = [];

afterEach(async () => {
  await Promise.all(
    servers.splice(0).map(
      (s) =>
        new Promise<void>((resolve) => {
          s.closeAllConnections();
          s.close(() => resolve());
        }),
    ),
  );
});

/** A server on 127.0.0.1 answering its n-th request (from 0) with `handle`. */
async function serve(handle: (res: ServerResponse, n: number) => void) {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      handle(res, seen.length - 1);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, seen };
}

const SECRET = 'whsec_test_0123456789abcdef';
const T0 = new Date('2026-12-01T10:00:00Z');

/** Options with a clock that moves a minute per reading and a sleep that only records. */
function options(overrides: Partial<CallWebhookOptions> = {}) {
  const sleeps: number[] = [];
  let clock = T0.getTime();
  const opts: CallWebhookOptions = {
    secret: SECRET,
    deliveryId: 'dlv_1',
    now: () => {
      const at = new Date(clock);
      clock += 60_000;
      return at;
    },
    allowedHosts: ['127.0.0.1'],
    timeoutMs: 2000,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    ...overrides,
  };
  return { opts, sleeps };
}

const post = (url: string, body = '{"a":1}') => ({ url, method: 'POST' as const, headers: {}, body });

describe('renderWebhook', () => {
  const variables = {
    email: 'ada@example.com',
    id: 'c_1',
    data: { plan: 'pro', note: 'a <b> & "c"' },
    token: 'abc',
  };

  it('renders Liquid in the URL, header values and body, as plain text', async () => {
    const config: WebhookConfig = {
      url: 'https://hooks.example.com/contacts/{{id}}?plan={{data.plan}}',
      method: 'POST',
      headers: { Authorization: 'Bearer {{token}}', 'X-Static': 'same' },
      body: '{"email":"{{email}}","note":{{data.note | json}}}',
    };
    await expect(renderWebhook(config, variables)).resolves.toEqual({
      url: 'https://hooks.example.com/contacts/c_1?plan=pro',
      method: 'POST',
      headers: { Authorization: 'Bearer abc', 'X-Static': 'same' },
      body: '{"email":"ada@example.com","note":"a <b> & \\"c\\""}',
    });
  });

  it('leaves the body out when the step has none', async () => {
    const call = await renderWebhook({ url: 'http://x.example/', method: 'GET', headers: {} }, variables);
    expect(call).not.toHaveProperty('body');
  });

  it.each([
    ['CR LF', 'x\r\nX-Injected: 1'],
    ['LF', 'x\nX-Injected: 1'],
    ['CR', 'x\rX-Injected: 1'],
    ['NUL', 'x\0y'],
  ])('refuses a header value with %s once rendered', async (_, value) => {
    const config: WebhookConfig = {
      url: 'https://x.example/',
      method: 'POST',
      headers: { 'X-Note': '{{v}}' },
    };
    const error = await renderWebhook(config, { v: value }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WebhookConfigError);
    expect((error as Error).message).toBe('WEBHOOK header X-Note contains a line break or NUL once rendered');
  });

  it('refuses an invalid header name and a value HTTP cannot carry', async () => {
    const base = { url: 'https://x.example/', method: 'POST' as const };
    await expect(renderWebhook({ ...base, headers: { 'Bad Name': 'v' } }, {})).rejects.toThrow(
      'WEBHOOK header name "Bad Name" is not valid',
    );
    await expect(renderWebhook({ ...base, headers: { 'X-A': '{{v}}' } }, { v: 'snow ☃' })).rejects.toThrow(
      'WEBHOOK header X-A contains a character not allowed in a header',
    );
  });

  it.each([
    ['{{base}}/hook', { base: '' }, '"/hook"'],
    ['javascript:alert(1)', {}, '"javascript:alert(1)"'],
    ['ftp://files.example/x', {}, '"ftp://files.example/x"'],
    ['{{nothing}}', {}, '""'],
  ])('refuses the URL %s when it is not absolute http(s) once rendered', async (url, vars, shown) => {
    await expect(renderWebhook({ url, method: 'GET', headers: {} }, vars)).rejects.toThrow(
      `WEBHOOK url must be an absolute http or https URL once rendered, got ${shown}`,
    );
  });

  it('refuses a template that does not parse, naming the field', async () => {
    const error = await renderWebhook(
      { url: 'https://x.example/', method: 'POST', headers: {}, body: '{% if %}' },
      {},
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WebhookConfigError);
    expect((error as Error).message).toMatch(/^WEBHOOK body: /);
  });
});

describe('signatures', () => {
  it('signs "<t>.<body>" with HMAC-SHA256 in hex', () => {
    const expected = createHmac('sha256', SECRET).update('1764583200.{"a":1}').digest('hex');
    expect(signatureHeader(SECRET, 1764583200, '{"a":1}')).toBe(`t=1764583200,v1=${expected}`);
  });

  it('verifies within the tolerance only, for the right secret and body', () => {
    const t = Math.floor(T0.getTime() / 1000);
    const header = signatureHeader(SECRET, t, 'body');
    expect(verifySignature(SECRET, header, 'body', 300, T0)).toBe(true);
    expect(verifySignature(SECRET, header, 'body', 300, new Date(T0.getTime() + 300_000))).toBe(true);
    expect(verifySignature(SECRET, header, 'body', 300, new Date(T0.getTime() + 301_000))).toBe(false);
    expect(verifySignature(SECRET, header, 'body', 300, new Date(T0.getTime() - 301_000))).toBe(false);
    expect(verifySignature('other', header, 'body', 300, T0)).toBe(false);
    expect(verifySignature(SECRET, header, 'bodY', 300, T0)).toBe(false);
    expect(verifySignature(SECRET, header.replace(`t=${t}`, `t=${t + 1}`), 'body', 300, T0)).toBe(false);
  });

  it('accepts any matching v1 among several, and refuses malformed headers', () => {
    const t = Math.floor(T0.getTime() / 1000);
    const good = signatureHeader(SECRET, t, '').split('v1=')[1]!;
    expect(verifySignature(SECRET, `t=${t},v1=${'0'.repeat(64)},v1=${good}`, '', 300, T0)).toBe(true);
    for (const header of [
      undefined,
      '',
      `v1=${good}`,
      `t=${t}`,
      `t=abc,v1=${good}`,
      `t=${t},v1=${good.slice(2)}`,
    ])
      expect(verifySignature(SECRET, header, '', 300, T0)).toBe(false);
  });
});

describe('callWebhook', () => {
  it('sends the rendered request, signed, with Sesame headers', async () => {
    const target = await serve((res) => res.writeHead(204).end());
    const { opts } = options();
    const result = await callWebhook(
      { url: target.url, method: 'POST', headers: { 'X-Custom': 'yes' }, body: '{"a":1}' },
      opts,
    );
    expect(result).toEqual({ ok: true, status: 204, attempts: 1 });
    const request = target.seen[0]!;
    expect(request).toMatchObject({ method: 'POST', url: '/hook', body: '{"a":1}' });
    expect(request.headers).toMatchObject({
      'x-custom': 'yes',
      'content-type': 'application/json',
      'user-agent': 'Sesame-Webhook/1',
      'sesame-delivery': 'dlv_1',
      'sesame-signature': signatureHeader(SECRET, T0.getTime() / 1000, '{"a":1}'),
    });
    expect(
      verifySignature(SECRET, request.headers['sesame-signature'] as string, request.body, 300, T0),
    ).toBe(true);
  });

  it("keeps the step's Content-Type, sends none without a body, and signs the empty body", async () => {
    const target = await serve((res) => res.end());
    const { opts } = options();
    await callWebhook(
      { url: target.url, method: 'PUT', headers: { 'content-type': 'text/plain' }, body: 'hi' },
      opts,
    );
    await callWebhook({ url: target.url, method: 'GET', headers: {} }, opts);
    expect(target.seen[0]!.headers['content-type']).toBe('text/plain');
    expect(target.seen[1]!.headers['content-type']).toBeUndefined();
    const header = target.seen[1]!.headers['sesame-signature'] as string;
    expect(verifySignature(SECRET, header, '', 300, new Date(T0.getTime() + 60_000))).toBe(true);
  });

  it("drops the step's own values of the headers Sesame sets", async () => {
    const target = await serve((res) => res.end());
    const { opts } = options();
    await callWebhook(
      {
        url: target.url,
        method: 'POST',
        headers: {
          'sesame-signature': 't=1,v1=forged',
          'Sesame-Delivery': 'forged',
          HOST: 'evil.example',
          'Content-Length': '999',
          'User-Agent': 'curl',
        },
        body: 'x',
      },
      opts,
    );
    const headers = target.seen[0]!.headers;
    expect(headers['sesame-delivery']).toBe('dlv_1');
    expect(headers['sesame-signature']).toBe(signatureHeader(SECRET, T0.getTime() / 1000, 'x'));
    expect(headers.host).toBe(new URL(target.url).host);
    expect(headers['content-length']).toBe('1');
    expect(headers['user-agent']).toBe('Sesame-Webhook/1');
  });

  it('retries 500, 503 and 429 with doubling backoff, the same delivery id and a fresh signature each time', async () => {
    const statuses = [500, 503, 429, 200];
    const target = await serve((res, n) => res.writeHead(statuses[n]!).end());
    const { opts, sleeps } = options();
    const result = await callWebhook(post(target.url), opts);
    expect(result).toEqual({ ok: true, status: 200, attempts: 4 });
    expect(sleeps).toEqual([1000, 2000, 4000]);
    expect(target.seen.map((s) => s.headers['sesame-delivery'])).toEqual([
      'dlv_1',
      'dlv_1',
      'dlv_1',
      'dlv_1',
    ]);
    const stamps = target.seen.map((s) => /^t=(\d+),/.exec(s.headers['sesame-signature'] as string)![1]);
    expect(new Set(stamps).size).toBe(4);
    target.seen.forEach((s, i) => {
      const at = new Date(T0.getTime() + i * 60_000);
      expect(verifySignature(SECRET, s.headers['sesame-signature'] as string, s.body, 0, at)).toBe(true);
    });
  });

  it('gives up after the last attempt, reporting the last status', async () => {
    const target = await serve((res) => res.writeHead(500).end('boom'));
    const { opts, sleeps } = options({ backoffMs: 10 });
    const result = await callWebhook(post(target.url), opts);
    expect(result).toEqual({
      ok: false,
      status: 500,
      attempts: 4,
      error: 'webhook target answered HTTP 500 (after 4 attempts)',
    });
    expect(target.seen).toHaveLength(4);
    expect(sleeps).toEqual([10, 20, 40]);
  });

  it('retries a reset connection', async () => {
    const target = await serve((res, n) => {
      if (n < 2) res.socket?.destroy();
      else res.end();
    });
    const { opts } = options();
    await expect(callWebhook(post(target.url), opts)).resolves.toEqual({
      ok: true,
      status: 200,
      attempts: 3,
    });
  });

  it('reports a connection reset every time as a failure after every attempt', async () => {
    const target = await serve((res) => res.socket?.destroy());
    const { opts } = options({ attempts: 2 });
    const result = await callWebhook(post(target.url), opts);
    expect(result).toMatchObject({ ok: false, attempts: 2 });
    expect(result).not.toHaveProperty('status');
    expect(target.seen).toHaveLength(2);
  });

  it.each([400, 401, 404, 410, 422, 301])('does not retry %i', async (status) => {
    const target = await serve((res) => res.writeHead(status).end());
    const { opts, sleeps } = options();
    const result = await callWebhook(post(target.url), opts);
    expect(result).toEqual({
      ok: false,
      status,
      attempts: 1,
      error: `webhook target answered HTTP ${status}`,
    });
    expect(sleeps).toEqual([]);
  });

  it('honours a small timeoutMs on each attempt', async () => {
    const target = await serve(() => {
      // never answers
    });
    const { opts } = options({ timeoutMs: 100, attempts: 2 });
    const started = Date.now();
    const result = await callWebhook(post(target.url), opts);
    expect(result).toEqual({
      ok: false,
      attempts: 2,
      error: `webhook target ${new URL(target.url).host} timed out after 100 ms (after 2 attempts)`,
    });
    expect(target.seen).toHaveLength(2);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('fails at once, without retrying, on a forbidden target', async () => {
    const { opts, sleeps } = options({ allowedHosts: [] });
    await expect(callWebhook(post('http://10.0.0.5/hook'), opts)).resolves.toEqual({
      ok: false,
      attempts: 1,
      error: 'webhook target 10.0.0.5 (private address) is not allowed',
    });
    const lookup = async () => [{ address: '169.254.169.254', family: 4 }];
    await expect(
      callWebhook(post('https://hooks.example.com/x'), { ...options({ allowedHosts: [], lookup }).opts }),
    ).resolves.toEqual({
      ok: false,
      attempts: 1,
      error:
        'webhook target hooks.example.com resolves to 169.254.169.254 (cloud metadata address), which is not allowed',
    });
    expect(sleeps).toEqual([]);
  });

  it('fails at once when the allowed server redirects to a forbidden target', async () => {
    const target = await serve((res) =>
      res.writeHead(307, { location: 'http://169.254.169.254/latest/' }).end(),
    );
    const { opts } = options();
    const result = await callWebhook(post(target.url), opts);
    expect(result).toMatchObject({
      ok: false,
      attempts: 1,
      error: expect.stringMatching(/cloud metadata address/),
    });
    expect(target.seen).toHaveLength(1);
  });
});

describe('WEBHOOK_ALLOWED_HOSTS', () => {
  it('is empty by default, and a trimmed lower-case list without empty entries when set', () => {
    expect(toAppConfig(parseEnv({ TABLE_NAME: 't' })).webhookAllowedHosts).toEqual([]);
    expect(toAppConfig(parseEnv({ TABLE_NAME: 't', WEBHOOK_ALLOWED_HOSTS: '' })).webhookAllowedHosts).toEqual(
      [],
    );
    const env = parseEnv({
      TABLE_NAME: 't',
      WEBHOOK_ALLOWED_HOSTS: ' LocalHost, ,127.0.0.1,[::1],Host.Docker.Internal,',
    });
    expect(toAppConfig(env).webhookAllowedHosts).toEqual([
      'localhost',
      '127.0.0.1',
      '[::1]',
      'host.docker.internal',
    ]);
  });

  it('refuses entries with a scheme or port, naming them', () => {
    expect(() => parseEnv({ TABLE_NAME: 't', WEBHOOK_ALLOWED_HOSTS: 'localhost:3000' })).toThrow(
      'WEBHOOK_ALLOWED_HOSTS.0: "localhost:3000" is not a host name or IP address (no scheme or port)',
    );
    expect(() => parseEnv({ TABLE_NAME: 't', WEBHOOK_ALLOWED_HOSTS: 'ok,http://x' })).toThrow(
      /WEBHOOK_ALLOWED_HOSTS\.1: "http:\/\/x"/,
    );
  });
});
