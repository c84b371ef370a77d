/**
 * The typed client (client/), generated from the OpenAPI document, against the local runtime:
 * successes come back as typed `data`, failures as typed `error` (the envelope, or the flat 400
 * of a create), never as exceptions.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import { createSesameClient, isEnvelope, type SesameError, type SesameFlatError } from '../../client/src';
import { useLocalRuntime } from './helpers/local';

const rt = useLocalRuntime();
const client = () => createSesameClient({ baseUrl: rt.url, apiKey: rt.secretKey });

describe('typed client', () => {
  it('creates, reads and lists contacts with typed data', async () => {
    const sesame = client();
    const made = await sesame.POST('/contacts', {
      body: { email: 'client-ann@example.org', data: { plan: 'pro' } },
    });
    expect(made.error).toBeUndefined();
    expect(made.response.status).toBe(201);
    const id = made.data!.id;
    expectTypeOf(id).toEqualTypeOf<string>();
    expectTypeOf(made.data!._meta.isNew).toEqualTypeOf<boolean>();
    expect(made.data?._meta).toEqual({ isNew: true, isUpdate: false });

    const read = await sesame.GET('/contacts/{id}', { params: { path: { id } } });
    expect(read.data?.email).toBe('client-ann@example.org');
    expect(read.data?.data).toMatchObject({ plan: 'pro' });

    const list = await sesame.GET('/contacts', { params: { query: { search: 'client-ann' } } });
    expect(list.data?.data.map((c) => c.id)).toContain(id);
  });

  it('answers a refused body as a typed error envelope, with no data', async () => {
    const res = await client().POST('/contacts', { body: { email: 'not-an-email' } });
    expect(res.data).toBeUndefined();
    expect(res.response.status).toBe(422);
    expect(isEnvelope(res.error)).toBe(true);
    const error = res.error as SesameError;
    expect(error.error.code).toBe('VALIDATION_ERROR');
    expect(error.error.errors?.[0]?.field).toBe('email');
  });

  it("answers a create's missing required field as the flat {error}", async () => {
    const res = await client().POST('/templates', {
      // The type requires the fields: a caller that skips them on purpose has to say so.
      body: { name: 'No subject' } as never,
    });
    expect(res.response.status).toBe(400);
    expect(isEnvelope(res.error)).toBe(false);
    expect((res.error as SesameFlatError).error).toBe('subject, body, from are required');
  });

  it('answers an unknown key as INVALID_API_KEY', async () => {
    const res = await createSesameClient({ baseUrl: rt.url, apiKey: 'sk_nope' }).GET('/contacts');
    expect(res.response.status).toBe(401);
    expect((res.error as SesameError).error.code).toBe('INVALID_API_KEY');
  });

  it('sends email and tracks events', async () => {
    const sesame = client();
    const sent = await sesame.POST('/v1/send', {
      body: {
        to: 'client-bob@example.org',
        from: `hello@${rt.senderDomain}`,
        subject: 'Hi',
        body: '<p>Hello</p>',
      },
    });
    expect(sent.error).toBeUndefined();
    expect(sent.data?.data.emails[0]?.status).toBe('sent');
    expectTypeOf(sent.data!.data.emails[0]!.status).toEqualTypeOf<
      'sent' | 'skipped' | 'failed' | 'unknown'
    >();

    const tracked = await createSesameClient({ baseUrl: rt.url, apiKey: rt.publicKey }).POST('/v1/track', {
      body: { email: 'client-bob@example.org', event: 'signed-up' },
    });
    expect(tracked.response.status).toBe(200);
    expect(tracked.data?.success).toBe(true);
  });

  it('reads the API document it was generated from, with no key', async () => {
    const res = await fetch(`${rt.url}/openapi.json`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { openapi: string; paths: Record<string, unknown> };
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toContain('/contacts/{id}');
  });

  it('serves the reference page and its script with no key, under a CSP that allows only itself', async () => {
    const page = await fetch(`${rt.url}/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'; script-src 'self'");
    expect(await page.text()).toContain('<script src="docs/reference.js"></script>');
    const script = await fetch(`${rt.url}/docs/reference.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await script.text()).toContain("fetch('openapi.json')");
  });
});
