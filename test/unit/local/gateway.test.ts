import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MailSink } from '../../../shared/adapters/local/mail-sink';
import { LocalQueue } from '../../../shared/adapters/local/queue';
import { clfTime, type RawRequest, toHttpApiEvent, toReply } from '../../../shared/local/apigw-event';
import { createGateway, type HttpHandler } from '../../../shared/local/gateway';
import { compileRoutes } from '../../../shared/local/routes';
import type { Manifest } from '../../../shared/manifest';
import { silent } from './helpers';

const testManifest: Pick<Manifest, 'routeGroups' | 'fallbackGroup'> = {
  routeGroups: [
    {
      name: 'contacts',
      handler: 'none',
      routes: [
        { method: 'GET', path: '/contacts' },
        { method: 'POST', path: '/contacts' },
        { method: 'GET', path: '/contacts/fields' },
        { method: 'GET', path: '/contacts/fields/{field}/values' },
        { method: 'GET', path: '/contacts/{id}' },
        { method: 'PATCH', path: '/contacts/{id}' },
      ],
    },
    { name: 'uploads', handler: 'none', routes: [{ method: 'POST', path: '/uploads/{proxy+}' }] },
    { name: 'fallback', handler: 'none', routes: [] },
  ],
  fallbackGroup: 'fallback',
};

describe('route matching', () => {
  const match = compileRoutes(testManifest);

  it('prefers static segments to parameters, as API Gateway does', () => {
    expect(match('GET', '/contacts/fields')).toEqual({
      group: 'contacts',
      routeKey: 'GET /contacts/fields',
      pathParameters: undefined,
    });
    expect(match('GET', '/contacts/123')).toEqual({
      group: 'contacts',
      routeKey: 'GET /contacts/{id}',
      pathParameters: { id: '123' },
    });
  });

  it('decodes path parameters', () => {
    expect(match('GET', '/contacts/fields/data.a%2Fb%20c/values').pathParameters).toEqual({
      field: 'data.a/b c',
    });
    expect(match('POST', '/uploads/a/b%20c.csv')).toMatchObject({
      routeKey: 'POST /uploads/{proxy+}',
      pathParameters: { proxy: 'a/b c.csv' },
    });
  });

  it('sends wrong methods, unknown paths and trailing slashes to the fallback as $default', () => {
    const fallback = { group: 'fallback', routeKey: '$default', pathParameters: undefined };
    expect(match('DELETE', '/contacts')).toEqual(fallback);
    expect(match('GET', '/nope')).toEqual(fallback);
    expect(match('GET', '/contacts/')).toEqual(fallback);
    expect(match('GET', '/contacts/1/extra')).toEqual(fallback);
  });

  it('refuses a fallback group that does not exist', () => {
    expect(() => compileRoutes({ ...testManifest, fallbackGroup: 'ghost' })).toThrow(/fallback/);
  });
});

describe('event building', () => {
  const now = new Date('2025-11-21T19:41:05.123Z');
  const request = (over: Partial<RawRequest>): RawRequest => ({
    method: 'GET',
    url: '/contacts',
    headers: { host: ['127.0.0.1:3000'], 'user-agent': ['vitest'] },
    body: Buffer.alloc(0),
    sourceIp: '127.0.0.1',
    protocol: 'HTTP/1.1',
    ...over,
  });
  const match = compileRoutes(testManifest);
  const build = (r: RawRequest) =>
    toHttpApiEvent(r, match(r.method, r.url.split('?')[0]!), { requestId: 'req-1', now });

  it('fills the payload 2.0 fields', () => {
    const event = build(
      request({
        url: '/contacts/abc%40x?limit=5&tag=a&tag=b&q=hello+world%21&flag',
        headers: {
          host: ['127.0.0.1:3000'],
          'user-agent': ['vitest'],
          accept: ['application/json', 'text/plain'],
          cookie: ['a=1; b=2', 'c=3'],
        },
      }),
    );
    expect(event).toEqual({
      version: '2.0',
      routeKey: 'GET /contacts/{id}',
      rawPath: '/contacts/abc%40x',
      rawQueryString: 'limit=5&tag=a&tag=b&q=hello+world%21&flag',
      cookies: ['a=1', 'b=2', 'c=3'],
      headers: {
        host: '127.0.0.1:3000',
        'user-agent': 'vitest',
        accept: 'application/json,text/plain',
        'x-forwarded-for': '127.0.0.1',
        'x-forwarded-proto': 'http',
        'x-forwarded-port': '3000',
      },
      queryStringParameters: { limit: '5', tag: 'a,b', q: 'hello world!', flag: '' },
      pathParameters: { id: 'abc@x' },
      requestContext: {
        accountId: expect.stringMatching(/^\d{12}$/),
        apiId: 'local',
        domainName: '127.0.0.1:3000',
        domainPrefix: '127',
        http: {
          method: 'GET',
          path: '/contacts/abc%40x',
          protocol: 'HTTP/1.1',
          sourceIp: '127.0.0.1',
          userAgent: 'vitest',
        },
        requestId: 'req-1',
        routeKey: 'GET /contacts/{id}',
        stage: '$default',
        time: '21/Nov/2025:19:41:05 +0000',
        timeEpoch: now.getTime(),
      },
      isBase64Encoded: false,
    } satisfies APIGatewayProxyEventV2);
  });

  it('passes text bodies as text and everything else base64-encoded', () => {
    const json = build(
      request({
        method: 'POST',
        headers: { 'content-type': ['application/json'] },
        body: Buffer.from('{"a":1}'),
      }),
    );
    expect(json).toMatchObject({ body: '{"a":1}', isBase64Encoded: false, routeKey: 'POST /contacts' });

    const multipart = Buffer.from('--x\r\nContent-Disposition: form-data; name="f"\r\n\r\nv\r\n--x--\r\n');
    const upload = build(
      request({
        method: 'POST',
        url: '/uploads/list.csv',
        headers: { 'content-type': ['multipart/form-data; boundary=x'] },
        body: multipart,
      }),
    );
    expect(upload.isBase64Encoded).toBe(true);
    expect(Buffer.from(upload.body!, 'base64').equals(multipart)).toBe(true);

    const binary = build(request({ method: 'POST', headers: {}, body: Buffer.from([0, 1, 2]) }));
    expect(binary).toMatchObject({ body: 'AAEC', isBase64Encoded: true });
    expect(build(request({})).body).toBeUndefined();
    expect(build(request({})).queryStringParameters).toBeUndefined();
  });

  it('formats requestContext.time like API Gateway', () => {
    expect(clfTime(new Date('2026-02-03T04:05:06Z'))).toBe('03/Feb/2026:04:05:06 +0000');
  });

  it('reads results as API Gateway reads payload 2.0 results', () => {
    expect(
      toReply({ statusCode: 201, headers: { 'X-A': 1 }, body: 'aGk=', isBase64Encoded: true }),
    ).toMatchObject({
      statusCode: 201,
      headers: { 'x-a': '1' },
      body: Buffer.from('hi'),
    });
    expect(toReply({ hello: 'world' })).toMatchObject({
      statusCode: 200,
      body: Buffer.from('{"hello":"world"}'),
    });
    expect(() => toReply({ statusCode: 42 })).toThrow(/statusCode/);
  });
});

describe('local gateway server', () => {
  let base = '';
  let close: () => Promise<void>;
  const events: APIGatewayProxyEventV2[] = [];
  const sink = new MailSink({ logger: silent });
  const queue = new LocalQueue({ queues: [], logger: silent });

  const echo: HttpHandler = async (event) => {
    events.push(event);
    if (event.rawPath === '/contacts/throw') throw new Error('handler bug');
    if (event.rawPath === '/contacts/cookies') {
      return {
        statusCode: 200,
        cookies: ['s=1; HttpOnly', 't=2'],
        headers: { 'content-type': 'text/plain' },
        body: 'b2s=',
        isBase64Encoded: true,
      };
    }
    return { statusCode: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(event) };
  };
  const fallback: HttpHandler = async () => ({
    statusCode: 404,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ success: false, error: { code: 'NOT_FOUND' } }),
  });

  beforeAll(async () => {
    const server = createGateway({
      manifest: testManifest,
      handlers: { contacts: echo, uploads: echo, fallback },
      mailSink: sink,
      queue,
      maxBodyBytes: 1024,
      logger: silent,
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = () => new Promise((resolve) => server.close(() => resolve()));
  });
  afterAll(async () => {
    await close();
  });

  it('calls the matched group with the event and writes its result', async () => {
    const res = await fetch(`${base}/contacts/x%2Fy?a=1&a=2`, { headers: { cookie: 'k=v' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('apigw-requestid')).toMatch(/^[0-9a-f-]{36}$/);
    const event = (await res.json()) as APIGatewayProxyEventV2;
    expect(event).toMatchObject({
      routeKey: 'GET /contacts/{id}',
      pathParameters: { id: 'x/y' },
      queryStringParameters: { a: '1,2' },
      cookies: ['k=v'],
    });
    expect(event.requestContext.requestId).toBe(res.headers.get('apigw-requestid'));
  });

  it('sends multipart uploads base64-encoded', async () => {
    const form = new FormData();
    form.append('file', new Blob(['a,b\n1,2\n'], { type: 'text/csv' }), 'list.csv');
    const res = await fetch(`${base}/uploads/list.csv`, { method: 'POST', body: form });
    const event = (await res.json()) as APIGatewayProxyEventV2;
    expect(event.isBase64Encoded).toBe(true);
    expect(event.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    expect(Buffer.from(event.body!, 'base64').toString()).toContain('filename="list.csv"');
  });

  it('writes cookies as Set-Cookie and decodes base64 bodies', async () => {
    const res = await fetch(`${base}/contacts/cookies`);
    expect(res.headers.getSetCookie()).toEqual(['s=1; HttpOnly', 't=2']);
    expect(await res.text()).toBe('ok');
  });

  it('hands unmatched requests to the fallback group with routeKey $default', async () => {
    const before = events.length;
    const res = await fetch(`${base}/nowhere`, { method: 'DELETE' });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ success: false, error: { code: 'NOT_FOUND' } });
    expect(events.length).toBe(before);
  });

  it("answers 500 with API Gateway's body when a handler throws", async () => {
    const res = await fetch(`${base}/contacts/throw`);
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ message: 'Internal Server Error' });
  });

  it('refuses bodies over the limit with 413, declared or streamed', async () => {
    const declared = await fetch(`${base}/contacts`, { method: 'POST', body: 'x'.repeat(2048) });
    expect(declared.status).toBe(413);
    expect(await declared.json()).toEqual({ message: 'Request Entity Too Large' });
    const stream = new ReadableStream({
      start(controller) {
        for (let i = 0; i < 4; i++) controller.enqueue(new TextEncoder().encode('y'.repeat(512)));
        controller.close();
      },
    });
    const streamed = await fetch(`${base}/contacts`, {
      method: 'POST',
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect(streamed.status).toBe(413);
  });

  it('serves the mail sink under /_local, escaping everything in the HTML page', async () => {
    const raw = new TextEncoder().encode(
      'From: a@example.com\r\nTo: b@example.org\r\nSubject: <script>alert(1)</script>\r\nContent-Type: text/html\r\n\r\n<p onclick="x()">Hi</p>\r\n',
    );
    const { messageId } = await sink.sendRaw({ from: 'a@example.com', to: ['b@example.org'], raw });

    const list = (await (await fetch(`${base}/_local/emails`)).json()) as { id: string; subject: string }[];
    expect(list[0]).toMatchObject({
      id: messageId,
      subject: '<script>alert(1)</script>',
      to: ['b@example.org'],
    });

    const source = await fetch(`${base}/_local/emails/${messageId}/raw`);
    expect(source.headers.get('content-type')).toBe('message/rfc822');
    expect(await source.text()).toContain('Subject: <script>');
    expect((await fetch(`${base}/_local/emails/nope/raw`)).status).toBe(404);

    // The inbox page holds no mail data (its script reads the JSON and shows it as text), under a
    // policy that allows its own script and nothing inline.
    const page = await fetch(`${base}/_local/mail`);
    const html = await page.text();
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(html).not.toContain('alert(1)');
    expect(html).toContain('<script src="/_local/mail/inbox.js" defer></script>');
    expect((await fetch(`${base}/_local/mail/inbox.js`)).headers.get('content-type')).toContain(
      'text/javascript',
    );
    const found = (await (await fetch(`${base}/_local/mail/messages?q=alert`)).json()) as {
      messages: { id: string; subject: string }[];
    };
    expect(found.messages).toMatchObject([{ id: messageId, subject: '<script>alert(1)</script>' }]);
    // The HTML body is served on its own, sandboxed by its policy even when opened directly.
    const body = await fetch(`${base}/_local/mail/messages/${messageId}/html`);
    expect(body.headers.get('content-security-policy')).toMatch(/; sandbox allow-popups/);
    expect(await body.text()).toContain('<p onclick="x()">Hi</p>');

    expect((await fetch(`${base}/_local/emails/${messageId}`, { method: 'DELETE' })).status).toBe(200);
    expect((await fetch(`${base}/_local/emails/${messageId}`)).status).toBe(404);
    expect((await fetch(`${base}/_local/emails/${messageId}`, { method: 'DELETE' })).status).toBe(404);

    const queues = (await (await fetch(`${base}/_local/queues`)).json()) as { queues: unknown };
    expect(queues.queues).toEqual({});
    expect((await fetch(`${base}/_local/other`)).status).toBe(404);
  });
});
