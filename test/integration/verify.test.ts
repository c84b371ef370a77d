import { describe, expect, it } from 'vitest';
import { useZoneFile } from './helpers/dns';
import { useLocalRuntime } from './helpers/local';

// A zone file makes every DNS answer deterministic (the runtime reads it as SESAME_DNS_FILE).
const dnsFile = useZoneFile({
  'acme.io': { NS: ['ns1.acme.io'], MX: ['10 mx1.acme.io', '20 mx2.acme.io'], A: '192.0.2.10' },
  'mail.acme.io': { MX: '10 mx1.acme.io' },
  'nomx.io': { NS: 'ns1.nomx.io', A: '192.0.2.20', AAAA: '2001:db8::20' },
  'nullmx.io': { NS: 'ns1.nullmx.io', MX: '0 .' },
  'gmail.com': { NS: 'ns1.google.com', MX: '5 gmail-smtp-in.l.google.com', A: '192.0.2.30' },
  'mailinator.com': { NS: 'ns1.mailinator.com', MX: '10 mail.mailinator.com' },
  'duck.com': { NS: 'ns1.duck.com', MX: '10 inbound.duck.com' },
});

const rt = useLocalRuntime({ dnsFile });

const verify = async (email: unknown, key?: string) => {
  const res = await rt.api('POST', '/v1/verify', { body: { email }, key });
  return res;
};

describe('POST /v1/verify', () => {
  it('answers the Verification result for a deliverable business address', async () => {
    const res = await verify('jane@acme.io');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: {
        email: 'jane@acme.io',
        valid: true,
        isDisposable: false,
        isAlias: false,
        isTypo: false,
        isPlusAddressed: false,
        isPersonalEmail: false,
        domainExists: true,
        hasWebsite: true,
        hasMxRecords: true,
        reasons: [],
      },
    });
  });

  it('counts a subdomain with MX but no NS records of its own as existing', async () => {
    const { body } = await verify('ops@mail.acme.io');
    expect(body.data).toMatchObject({
      valid: true,
      domainExists: true,
      hasMxRecords: true,
      hasWebsite: false,
    });
  });

  it('is invalid when the domain does not exist', async () => {
    const { body } = await verify('someone@no-such-domain.io');
    expect(body.data).toMatchObject({
      valid: false,
      domainExists: false,
      hasMxRecords: false,
      hasWebsite: false,
    });
    expect(body.data.reasons).toEqual(['The domain no-such-domain.io does not exist (no DNS records)']);
  });

  it('is invalid without MX records, even with a website', async () => {
    const { body } = await verify('someone@nomx.io');
    expect(body.data).toMatchObject({
      valid: false,
      domainExists: true,
      hasWebsite: true,
      hasMxRecords: false,
    });
    expect(body.data.reasons).toEqual(['The domain nomx.io has no MX records, so it cannot receive email']);
  });

  it('is invalid when the domain publishes a null MX', async () => {
    const { body } = await verify('someone@nullmx.io');
    expect(body.data).toMatchObject({ valid: false, domainExists: true, hasMxRecords: false });
    expect(body.data.reasons).toEqual(['The domain nullmx.io accepts no email (null MX record)']);
  });

  it('flags a personal provider and plus-addressing without making the address invalid', async () => {
    const { body } = await verify('jane+news@gmail.com');
    expect(body.data).toMatchObject({
      valid: true,
      isPersonalEmail: true,
      isPlusAddressed: true,
      isTypo: false,
    });
    expect(body.data.reasons).toEqual([
      'Plus-addressed (sub-address) local part',
      'Free or personal email provider',
    ]);
  });

  it('flags a disposable domain (and its subdomains) but keeps a deliverable one valid', async () => {
    const { body } = await verify('temp@mailinator.com');
    expect(body.data).toMatchObject({ valid: true, isDisposable: true, isPersonalEmail: false });
    expect(body.data.reasons).toEqual(['Disposable or temporary email domain']);
    const sub = await verify('temp@inbox.mailinator.com');
    expect(sub.body.data).toMatchObject({ isDisposable: true, valid: false, domainExists: false });
  });

  it('flags a forwarding (alias) service', async () => {
    const { body } = await verify('x7f3@duck.com');
    expect(body.data).toMatchObject({ valid: true, isAlias: true });
    expect(body.data.reasons).toContain('Email forwarding or alias service');
  });

  it('flags a likely typo with a suggestion, without that alone making it invalid', async () => {
    const { body } = await verify('Jane.Doe@gmial.com');
    expect(body.data).toMatchObject({
      isTypo: true,
      suggestedEmail: 'Jane.Doe@gmail.com',
      // gmial.com is not in the zone: invalid because it does not exist, not because of the typo.
      valid: false,
      domainExists: false,
    });
    expect(body.data.reasons).toContain('Possible typo: did you mean Jane.Doe@gmail.com?');
    const fine = await verify('jane@gmail.com');
    expect(fine.body.data).not.toHaveProperty('suggestedEmail');
  });

  it('reports finer syntax problems in the answer (200, valid false) without DNS lookups', async () => {
    const { status, body } = await verify(`${'a'.repeat(65)}@acme.io`);
    expect(status).toBe(200);
    expect(body.data).toMatchObject({ valid: false, domainExists: false, hasMxRecords: false });
    expect(body.data.reasons).toEqual([
      'Invalid syntax: the local part (before @) is longer than 64 characters',
    ]);
    const label = await verify('jane@acme-.io');
    expect(label.body.data.valid).toBe(false);
    expect(label.body.data.reasons[0]).toMatch(/^Invalid syntax: a domain label/);
  });

  it('trims the address and answers it as checked', async () => {
    const { body } = await verify('  jane@acme.io  ');
    expect(body.data).toMatchObject({ email: 'jane@acme.io', valid: true });
  });

  it.each([
    ['missing', undefined, 'invalid_type'],
    ['not a string', 42, 'invalid_type'],
    ['not an email', 'jane-at-acme.io', 'invalid_string'],
    ['over 254 characters', `${'a'.repeat(250)}@acme.io`, 'too_big'],
  ])('answers 422 when email is %s', async (_label, email, code) => {
    const res = await verify(email);
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'VALIDATION_ERROR' });
    expect(res.body.error.errors).toContainEqual(expect.objectContaining({ field: 'email', code }));
  });

  it('needs the secret key: a public key or none is 401', async () => {
    expect((await verify('jane@acme.io', rt.publicKey)).status).toBe(401);
    const none = await rt.api('POST', '/v1/verify', { body: { email: 'jane@acme.io' }, key: null });
    expect(none.status).toBe(401);
    expect(none.body.error.code).toBe('INVALID_API_KEY');
  });
});
