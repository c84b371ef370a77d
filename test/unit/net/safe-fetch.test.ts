/**
 * Requests to user-chosen URLs (shared/net/safe-fetch.ts): real HTTP servers on 127.0.0.1 (reached
 * only because the tests allow that host), names resolved by an injected lookup.
 */
import type { LookupAddress } from 'node:dns';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ForbiddenTargetError,
  type LookupFn,
  MAX_RESPONSE_BODY_BYTES,
  NetworkError,
  type SafeRequestOptions,
  safeRequest,
  TooManyRedirectsError,
} from '../../../shared/net/safe-fetch';

interface Seen {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

interface TestServer {
  readonly port: number;
  readonly origin: string;
  readonly seen: Seen[];
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

/** An HTTP server on 127.0.0.1 that records each request, then answers with `handle`. */
async function serve(handle: (req: Seen, res: ServerResponse, port: number) => void): Promise<TestServer> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const entry = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      seen.push(entry);
      handle(entry, res, port);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return { port, origin: `http://127.0.0.1:${port}`, seen };
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const LOCAL: SafeRequestOptions = { timeoutMs: 2000, allowedHosts: ['127.0.0.1'] };
const get = (url: string) => ({ url, method: 'GET', headers: {} });

/** A lookup answering from `table`, counting its calls; unknown names fail as DNS does. */
function fakeLookup(table: Record<string, readonly string[]>): LookupFn & { calls: string[] } {
  const calls: string[] = [];
  const lookup = async (hostname: string): Promise<LookupAddress[]> => {
    calls.push(hostname);
    const addresses = table[hostname];
    if (!addresses)
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(lookup, { calls });
}

describe('requests to an allowed local server', () => {
  it('sends the method, headers and body, and answers status, headers and body', async () => {
    const target = await serve((_req, res) => {
      res.writeHead(201, { 'x-reply': 'yes' }).end('created');
    });
    const response = await safeRequest(
      {
        url: `${target.origin}/hook?a=1#frag`,
        method: 'POST',
        headers: { 'X-Custom': 'v', 'Content-Type': 'application/json' },
        body: '{"é":1}',
      },
      LOCAL,
    );
    expect(response).toMatchObject({ status: 201, body: 'created' });
    expect(response.headers['x-reply']).toBe('yes');
    expect(target.seen).toHaveLength(1);
    expect(target.seen[0]).toMatchObject({ method: 'POST', url: '/hook?a=1', body: '{"é":1}' });
    expect(target.seen[0]!.headers).toMatchObject({
      host: `127.0.0.1:${target.port}`,
      'x-custom': 'v',
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength('{"é":1}')),
    });
  });

  it("drops the caller's framing headers (Host, Content-Length, Transfer-Encoding)", async () => {
    const target = await serve((_req, res) => res.end('ok'));
    await safeRequest(
      {
        url: `${target.origin}/`,
        method: 'POST',
        headers: { Host: 'evil.example', 'Content-Length': '1', 'Transfer-Encoding': 'chunked' },
        body: 'hello',
      },
      LOCAL,
    );
    expect(target.seen[0]!.headers.host).toBe(`127.0.0.1:${target.port}`);
    expect(target.seen[0]!.headers['content-length']).toBe('5');
    expect(target.seen[0]!.headers['transfer-encoding']).toBeUndefined();
    expect(target.seen[0]!.body).toBe('hello');
  });

  it('cuts the response body to 64 KB', async () => {
    const target = await serve((_req, res) => res.end('x'.repeat(200 * 1024)));
    const response = await safeRequest(get(`${target.origin}/`), LOCAL);
    expect(response.body).toHaveLength(MAX_RESPONSE_BODY_BYTES);
  });

  it('sends URL credentials as Basic authorization', async () => {
    const target = await serve((_req, res) => res.end());
    await safeRequest(get(`http://user:p%40ss@127.0.0.1:${target.port}/`), LOCAL);
    expect(target.seen[0]!.headers.authorization).toBe(
      `Basic ${Buffer.from('user:p@ss').toString('base64')}`,
    );
  });

  it('compares allowed hosts case-insensitively and connects to the looked-up address, never resolving again', async () => {
    const target = await serve((_req, res) => res.end('pinned'));
    // `hooks.test` exists in no DNS: reaching the server proves the connection used this answer.
    const lookup = fakeLookup({ 'hooks.test': ['127.0.0.1'] });
    const response = await safeRequest(get(`http://hooks.test:${target.port}/`), {
      timeoutMs: 2000,
      allowedHosts: ['HOOKS.Test'],
      lookup,
    });
    expect(response.body).toBe('pinned');
    expect(lookup.calls).toEqual(['hooks.test']);
    expect(target.seen[0]!.headers.host).toBe(`hooks.test:${target.port}`);
  });

  it('allows an IPv6 literal listed with or without brackets', async () => {
    for (const allowed of ['::1', '[::1]']) {
      const error = await safeRequest(get(`http://[::1]:${await closedPort()}/`), {
        timeoutMs: 2000,
        allowedHosts: [allowed],
      }).catch((e: unknown) => e);
      // Allowed, so it got as far as connecting (nothing listens there, or no IPv6 loopback).
      expect(error).toBeInstanceOf(NetworkError);
    }
  });
});

describe('targets refused before any connection', () => {
  it('refuses a private IP literal, naming host and reason', async () => {
    await expect(
      safeRequest(get('http://10.0.0.5/hook'), { timeoutMs: 2000, allowedHosts: [] }),
    ).rejects.toThrow(new ForbiddenTargetError('10.0.0.5', 'private address'));
    await expect(
      safeRequest(get('http://10.0.0.5/hook'), { timeoutMs: 2000, allowedHosts: [] }),
    ).rejects.toThrow('webhook target 10.0.0.5 (private address) is not allowed');
  });

  it('refuses the local server itself when 127.0.0.1 is not allowed', async () => {
    const target = await serve((_req, res) => res.end());
    const error = await safeRequest(get(`${target.origin}/`), { timeoutMs: 2000, allowedHosts: [] }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ForbiddenTargetError);
    expect((error as ForbiddenTargetError).retryable).toBe(false);
    expect(target.seen).toHaveLength(0);
  });

  it.each([
    ['http://169.254.169.254/latest/meta-data/', 'cloud metadata address'],
    ['http://[fd00:ec2::254]/latest/meta-data/', 'cloud metadata address'],
    ['http://[::1]/', 'loopback address'],
    ['http://[fe80::1]/', 'link-local address'],
    ['https://192.168.1.1/', 'private address'],
    ['http://0.0.0.0/', 'unspecified address'],
  ])('refuses %s (%s)', async (url, reason) => {
    await expect(safeRequest(get(url), { timeoutMs: 2000, allowedHosts: [] })).rejects.toMatchObject({
      name: 'ForbiddenTargetError',
      reason,
    });
  });

  it.each([
    ['http://2130706433/', 'decimal'],
    ['http://0x7f000001/', 'hex'],
    ['http://0177.0.0.1/', 'octal'],
    ['http://127.1/', 'short'],
    ['http://0x7f.1/', 'mixed'],
    ['http://[::ffff:127.0.0.1]/', 'IPv4-mapped'],
    ['http://[::ffff:7f00:1]/', 'IPv4-mapped hex'],
    ['http://[64:ff9b::7f00:1]/', 'NAT64'],
    ['http://[2002:7f00:1::]/', '6to4'],
  ])('refuses the loopback address written %s (%s)', async (url) => {
    const error = await safeRequest(get(url), { timeoutMs: 2000, allowedHosts: [] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ForbiddenTargetError);
    expect((error as ForbiddenTargetError).reason).toMatch(/^loopback address/);
  });

  it('allows 127.0.0.1 however it is spelled once it is allowed (the URL parser normalises the host)', async () => {
    const target = await serve((_req, res) => res.end('ok'));
    for (const host of ['2130706433', '0x7f000001', '0177.0.0.1', '127.1']) {
      const response = await safeRequest(get(`http://${host}:${target.port}/`), LOCAL);
      expect(response.body).toBe('ok');
    }
  });

  it('refuses a name resolving to a private address, naming both', async () => {
    const lookup = fakeLookup({ 'internal.example': ['10.1.2.3'] });
    await expect(
      safeRequest(get('http://internal.example/'), { timeoutMs: 2000, allowedHosts: [], lookup }),
    ).rejects.toThrow(
      'webhook target internal.example resolves to 10.1.2.3 (private address), which is not allowed',
    );
  });

  it('refuses a name when any one of its addresses is private', async () => {
    const lookup = fakeLookup({ 'mixed.example': ['93.184.215.14', '127.0.0.1'] });
    const error = await safeRequest(get('http://mixed.example/'), {
      timeoutMs: 2000,
      allowedHosts: [],
      lookup,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ForbiddenTargetError);
    expect(error).toMatchObject({ host: 'mixed.example', address: '127.0.0.1', reason: 'loopback address' });
  });

  it('refuses a name resolving to an IPv4-mapped or metadata IPv6 address', async () => {
    const lookup = fakeLookup({ 'a.example': ['::ffff:169.254.169.254'], 'b.example': ['fd00:ec2::254'] });
    for (const host of ['a.example', 'b.example']) {
      await expect(
        safeRequest(get(`http://${host}/`), { timeoutMs: 2000, allowedHosts: [], lookup }),
      ).rejects.toThrow(/cloud metadata address/);
    }
  });

  it.each(['ftp://example.com/', 'file:///etc/passwd', 'gopher://127.0.0.1:6379/', 'not a url', '/relative'])(
    'refuses %s',
    async (url) => {
      await expect(
        safeRequest(get(url), { timeoutMs: 2000, allowedHosts: ['127.0.0.1'] }),
      ).rejects.toBeInstanceOf(ForbiddenTargetError);
    },
  );
});

describe('redirects', () => {
  /** A server redirecting every request to `location` with `status`. */
  const redirector = (location: string | ((port: number) => string), status = 302) =>
    serve((_req, res, port) => {
      res.writeHead(status, { location: typeof location === 'string' ? location : location(port) }).end();
    });

  it.each([
    ['http://169.254.169.254/latest/meta-data/iam/', /169\.254\.169\.254 \(cloud metadata address\)/],
    ['http://[::1]:9/', /\[::1\] \(loopback address\)/],
    ['http://internal.example/', /internal\.example resolves to 10\.0\.0\.7 \(private address\)/],
    // The URL parser reads the hex host as 169.254.169.254 (127.0.0.1 itself is allowed here).
    ['http://0xa9fea9fe/', /169\.254\.169\.254 \(cloud metadata address\)/],
    ['http://localhost/', /localhost resolves to 127\.0\.0\.1 \(loopback address\)/],
  ])('checks each hop: a redirect to %s is refused', async (location, message) => {
    const start = await redirector(location);
    const lookup = fakeLookup({ 'internal.example': ['10.0.0.7'], localhost: ['127.0.0.1'] });
    const error = await safeRequest(get(`${start.origin}/`), { ...LOCAL, lookup }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ForbiddenTargetError);
    expect((error as Error).message).toMatch(message);
    expect(start.seen).toHaveLength(1);
  });

  it('refuses a redirect to a non-http scheme', async () => {
    const start = await redirector('file:///etc/passwd');
    await expect(safeRequest(get(`${start.origin}/`), LOCAL)).rejects.toThrow(
      /scheme file: is not http or https/,
    );
  });

  it('follows a relative redirect on an allowed host', async () => {
    const target = await serve((req, res) => {
      if (req.url === '/start') res.writeHead(301, { location: '/end' }).end();
      else res.end(`at ${req.url}`);
    });
    const response = await safeRequest(get(`${target.origin}/start`), LOCAL);
    expect(response).toMatchObject({ status: 200, body: 'at /end' });
  });

  it.each([
    [301, 'POST', 'GET', ''],
    [302, 'POST', 'GET', ''],
    [303, 'POST', 'GET', ''],
    [303, 'PUT', 'GET', ''],
    [302, 'PUT', 'PUT', 'payload'],
    [307, 'POST', 'POST', 'payload'],
    [308, 'POST', 'POST', 'payload'],
  ])('%i after %s is followed with %s', async (status, method, nextMethod, nextBody) => {
    const target = await serve((req, res) => {
      if (req.url === '/start') res.writeHead(status, { location: '/next' }).end();
      else res.end('done');
    });
    await safeRequest(
      { url: `${target.origin}/start`, method, headers: { 'Content-Type': 'text/plain' }, body: 'payload' },
      LOCAL,
    );
    const next = target.seen[1]!;
    expect(next).toMatchObject({ method: nextMethod, url: '/next', body: nextBody });
    expect(next.headers['content-type']).toBe(nextBody ? 'text/plain' : undefined);
  });

  it('does not carry Authorization or Cookie to another origin', async () => {
    const other = await serve((_req, res) => res.end('other'));
    const start = await serve((req, res) => {
      if (req.url === '/same') res.writeHead(302, { location: `${other.origin}/` }).end();
      else res.writeHead(302, { location: '/same' }).end();
    });
    const headers = { Authorization: 'Bearer secret', Cookie: 'a=b', 'X-Keep': '1' };
    await safeRequest({ url: `${start.origin}/`, method: 'GET', headers }, LOCAL);
    expect(start.seen[1]!.headers.authorization).toBe('Bearer secret');
    expect(other.seen[0]!.headers.authorization).toBeUndefined();
    expect(other.seen[0]!.headers.cookie).toBeUndefined();
    expect(other.seen[0]!.headers['x-keep']).toBe('1');
  });

  it('stops after maxRedirects (5 by default)', async () => {
    const loop = await serve((req, res) => {
      res.writeHead(302, { location: `/${Number(req.url!.slice(1)) + 1}` }).end();
    });
    await expect(safeRequest(get(`${loop.origin}/0`), LOCAL)).rejects.toBeInstanceOf(TooManyRedirectsError);
    expect(loop.seen).toHaveLength(6);

    const short = await serve((_req, res) => res.writeHead(307, { location: '/again' }).end());
    await expect(safeRequest(get(`${short.origin}/`), { ...LOCAL, maxRedirects: 2 })).rejects.toThrow(
      `webhook target 127.0.0.1:${short.port} redirected more than 2 times`,
    );
    expect(short.seen).toHaveLength(3);
  });

  it('returns a redirect status without Location as it is', async () => {
    const target = await serve((_req, res) => res.writeHead(302).end('no location'));
    await expect(safeRequest(get(`${target.origin}/`), LOCAL)).resolves.toMatchObject({ status: 302 });
  });
});

describe('network failures', () => {
  it('times out a server that never answers, as a NetworkError', async () => {
    const target = await serve(() => {
      // never answers
    });
    const started = Date.now();
    const error = await safeRequest(get(`${target.origin}/`), { ...LOCAL, timeoutMs: 200 }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).retryable).toBe(true);
    expect((error as Error).message).toBe(`webhook target 127.0.0.1:${target.port} timed out after 200 ms`);
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('times out a body that never ends', async () => {
    const target = await serve((_req, res) => {
      res.writeHead(200);
      res.write('partial');
    });
    await expect(safeRequest(get(`${target.origin}/`), { ...LOCAL, timeoutMs: 200 })).rejects.toThrow(
      /timed out/,
    );
  });

  it('counts DNS in the deadline', async () => {
    const lookup: LookupFn = () => new Promise(() => {});
    await expect(
      safeRequest(get('http://slow-dns.example/'), { timeoutMs: 100, allowedHosts: [], lookup }),
    ).rejects.toThrow('webhook target slow-dns.example timed out after 100 ms');
  });

  it('reports a name that does not resolve as a NetworkError', async () => {
    const lookup = fakeLookup({});
    await expect(
      safeRequest(get('http://nowhere.example/'), { timeoutMs: 2000, allowedHosts: [], lookup }),
    ).rejects.toThrow(new NetworkError('webhook target nowhere.example could not be resolved (ENOTFOUND)'));
  });

  it('reports a refused connection as a NetworkError', async () => {
    const port = await closedPort();
    await expect(safeRequest(get(`http://127.0.0.1:${port}/`), LOCAL)).rejects.toThrow(
      new NetworkError(`webhook target 127.0.0.1:${port}: connection refused`),
    );
  });

  it('reports a reset connection as a NetworkError', async () => {
    const target = await serve((_req, res) => res.socket?.destroy());
    await expect(safeRequest(get(`${target.origin}/`), LOCAL)).rejects.toBeInstanceOf(NetworkError);
  });

  it('reports a TLS failure (https to a plain HTTP server) as a NetworkError', async () => {
    const target = await serve((_req, res) => res.end());
    await expect(safeRequest(get(`https://127.0.0.1:${target.port}/`), LOCAL)).rejects.toBeInstanceOf(
      NetworkError,
    );
  });
});
