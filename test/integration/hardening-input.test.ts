/**
 * Hostile custom-data keys and percent signs in path parameters, through HTTP against the local
 * runtime.
 *
 * - `__proto__`, `constructor` and `prototype` are refused as custom-data keys at any depth, with
 *   422 VALIDATION_ERROR (field code `invalid_key`), wherever custom data enters: contacts create
 *   and patch, /v1/send, /v1/track, /events/track, CSV columns (the job fails with a reason) and
 *   the field names of /contacts/fields routes. A refused request changes nothing.
 * - Path parameters reach the handlers decoded once, as API Gateway delivers them: a field named
 *   `a%20b` (sent as `a%2520b`) stays `a%20b` and is never confused with `a b`.
 * - A script URL from contact or request data (`javascript:`, however cased or padded,
 *   `vbscript:`, `data:text/html`) in a URL attribute is sent as `about:blank` on every send path;
 *   a safe link goes out as it was and is click-tracked, the author's own literal URL stays.
 */
import { describe, expect, it } from 'vitest';
import { contactByEmail, listContactEvents, uniqueEmail } from './helpers/contacts';
import { upload } from './helpers/imports';
import { type ApiResponse, type Json, useLocalRuntime } from './helpers/local';
import { pollUntil } from './helpers/wait';
import { createTemplate, linearWorkflow } from './helpers/workflows';

const rt = useLocalRuntime();

/** Numbers the Idempotency-Keys, so no two requests share one. */
let seq = 0;

const FORBIDDEN = ['__proto__', 'constructor', 'prototype'] as const;

/**
 * `data` payloads putting `key` at the top level, nested, inside a kept or one-off value, and in
 * an array, written as JSON text (so `__proto__` is an own key, as JSON.parse makes it), with
 * the path the error must name.
 */
function payloads(key: string): { name: string; data: string; path: string }[] {
  const k = JSON.stringify(key);
  return [
    { name: 'top level', data: `{"plan":"pro",${k}:"x"}`, path: `data.${key}` },
    { name: 'top level, object value', data: `{${k}:{"name":"String"}}`, path: `data.${key}` },
    { name: 'nested', data: `{"profile":{"tier":"gold",${k}:{"x":1}}}`, path: `data.profile.${key}` },
    { name: 'deeply nested', data: `{"a":{"b":{"c":{${k}:1}}}}`, path: `data.a.b.c.${key}` },
    {
      name: 'inside a one-off value',
      data: `{"coupon":{"value":{${k}:"x"},"persistent":false}}`,
      path: `data.coupon.${key}`,
    },
    { name: 'inside an array', data: `{"tags":[{${k}:"x"}]}`, path: `data.tags.0.${key}` },
  ];
}

/** Sends JSON text as it is (JSON.stringify would not keep an own `__proto__`). */
function sendJson(method: string, path: string, json: string, options: { key?: string; idem?: string } = {}) {
  return rt.api(method, path, {
    raw: json,
    key: options.key,
    headers: {
      'content-type': 'application/json',
      ...(options.idem ? { 'idempotency-key': options.idem } : {}),
    },
  });
}

function expectInvalidKey(res: ApiResponse, key: string, path: string) {
  expect(res.status, res.text).toBe(422);
  expect(res.body.error.code).toBe('VALIDATION_ERROR');
  const issue = (res.body.error.errors as Json[]).find((e) => e.code === 'invalid_key');
  expect(issue, res.text).toBeDefined();
  expect(issue.field).toBe(path);
  expect(issue.message).toContain(`"${key}"`);
  expect(issue.message).toContain(path);
}

/** The names of a contact's events, as the API lists them. */
const eventNames = async (contactId: string): Promise<string[]> =>
  (await listContactEvents(rt, contactId)).map((e) => e.name);

describe('custom-data keys __proto__, constructor and prototype', () => {
  for (const key of FORBIDDEN) {
    for (const p of payloads(key)) {
      it(`POST /contacts refuses ${key} (${p.name}) and creates nothing`, async () => {
        const email = uniqueEmail('create');
        const res = await sendJson('POST', '/contacts', `{"email":"${email}","data":${p.data}}`);
        expectInvalidKey(res, key, p.path);
        expect(await contactByEmail(rt, email)).toBeUndefined();
      });

      it(`PATCH /contacts/{id} refuses ${key} (${p.name}) and leaves the contact as it was`, async () => {
        const email = uniqueEmail('patch');
        const created = await rt.api('POST', '/contacts', {
          body: { email, data: { plan: 'free', profile: { tier: 'silver' } } },
        });
        expect(created.status).toBe(201);
        const before = (await rt.api('GET', `/contacts/${created.body.id}`)).body;
        const res = await sendJson(
          'PATCH',
          `/contacts/${created.body.id}`,
          `{"subscribed":false,"data":${p.data}}`,
        );
        expectInvalidKey(res, key, p.path);
        expect((await rt.api('GET', `/contacts/${created.body.id}`)).body).toEqual(before);
      });

      it(`POST /v1/send refuses ${key} (${p.name}), with or without an Idempotency-Key`, async () => {
        for (const idem of [undefined, `idem-${key}-${++seq}`]) {
          const email = uniqueEmail('send');
          const body = `{"to":"${email}","from":"hello@${rt.senderDomain}","subject":"Hi","body":"<p>Hi</p>","data":${p.data}}`;
          const res = await sendJson('POST', '/v1/send', body, { idem });
          expectInvalidKey(res, key, p.path);
          expect(await contactByEmail(rt, email)).toBeUndefined();
          expect(await rt.mails({ to: email })).toHaveLength(0);
        }
      });

      for (const route of ['/v1/track', '/events/track'] as const) {
        it(`POST ${route} refuses ${key} (${p.name}) and records nothing`, async () => {
          const email = uniqueEmail('track');
          const known = await rt.api('POST', '/contacts', { body: { email, data: { plan: 'free' } } });
          const before = (await rt.api('GET', `/contacts/${known.body.id}`)).body;
          const res = await sendJson(
            'POST',
            route,
            `{"email":"${email}","event":"signup","data":${p.data}}`,
            {
              key: route === '/v1/track' ? rt.publicKey : rt.secretKey,
              idem: `track-${++seq}`,
            },
          );
          expectInvalidKey(res, key, p.path);
          expect((await rt.api('GET', `/contacts/${known.body.id}`)).body).toEqual(before);
          expect(await eventNames(known.body.id)).toEqual([]);
        });
      }
    }
  }

  it('still accepts keys that merely contain the words (Constructor, my_prototype, proto)', async () => {
    const email = uniqueEmail('near');
    const data = { Constructor: 'a', my_prototype: 'b', proto: 'c', profile: { constructorName: 'd' } };
    const res = await rt.api('POST', '/contacts', { body: { email, data } });
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual(data);
  });

  it('renders nothing for {{constructor}} or {{__proto__}} in a template', async () => {
    const email = uniqueEmail('render');
    const res = await rt.api('POST', '/v1/send', {
      body: {
        to: email,
        from: `hello@${rt.senderDomain}`,
        subject: '[{{constructor}}][{{__proto__}}][{{profile.constructor}}][{{plan.constructor}}]',
        body: '<p>{{constructor}}{{profile.prototype}}</p>',
        data: { plan: 'pro', profile: { tier: 'gold' } },
      },
    });
    expect(res.status, res.text).toBe(200);
    const [mail] = await rt.mails({ to: email });
    expect(mail?.subject).toBe('[][][][]');
  });

  describe('/contacts/fields routes', () => {
    for (const key of FORBIDDEN) {
      for (const field of [key, `data.${key}`, `profile.${key}`, `${key}.tier`]) {
        it(`refuses the field name ${field} with 422 invalid_key on every route`, async () => {
          const at = encodeURIComponent(field);
          for (const [method, path] of [
            ['GET', `/contacts/fields/${at}/values`],
            ['GET', `/contacts/fields/${at}/usage`],
            ['DELETE', `/contacts/fields/${at}`],
          ] as const) {
            const res = await rt.api(method, path);
            expect(res.status, `${method} ${path}: ${res.text}`).toBe(422);
            const issue = res.body.error.errors[0];
            expect(issue).toMatchObject({ field: 'field', code: 'invalid_key' });
            expect(issue.message).toContain(`"${key}"`);
          }
        });
      }
    }
  });

  describe('CSV import', () => {
    for (const column of [
      'constructor.prototype.x',
      'constructor',
      '__proto__',
      '__proto__.polluted',
      'prototype',
      'profile.constructor',
      'profile.prototype.tier',
    ]) {
      it(`ends a file with the column "${column}" as failed with a reason, never dead-lettered`, async () => {
        const email = uniqueEmail('csv');
        const res = await upload(rt, `email,name,${column}\n${email},Ann,1\n`);
        expect(res.status, res.text).toBe(202);
        await rt.drain({ timeoutMs: 30_000 });
        const job = (await rt.api('GET', `/contacts/import/${res.body.jobId}`)).body;
        expect(job).toMatchObject({
          status: 'failed',
          processedRows: 0,
          imported: 0,
          error: { code: 'INVALID_COLUMN' },
        });
        const segment = FORBIDDEN.find((k) => column.split('.').includes(k))!;
        expect(job.error.message).toContain(`"${segment}"`);
        expect(job.error.message).toContain(column);
        expect(rt.queue.deadLetters()).toEqual([]);
        expect(await contactByEmail(rt, email)).toBeUndefined();
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      });
    }
  });
});

describe('percent signs in path parameters (decoded once, as API Gateway does)', () => {
  it('GET values and DELETE of a custom field named a%20b or 50%off address that field exactly', async () => {
    const ann = uniqueEmail('pct');
    const bob = uniqueEmail('pct');
    const created = await rt.api('POST', '/contacts', {
      body: {
        email: ann,
        data: { 'a%20b': 'encoded', 'a b': 'spaced', '50%off': 'yes', '%41': 'percent-41' },
      },
    });
    expect(created.status).toBe(201);
    await rt.api('POST', '/contacts', { body: { email: bob, data: { 'a b': 'only-spaced', A: 'capital' } } });

    for (const [name, value] of [
      ['a%20b', 'encoded'],
      ['50%off', 'yes'],
      ['%41', 'percent-41'],
      ['a b', 'spaced'],
    ] as const) {
      for (const field of [name, `data.${name}`]) {
        const res = await rt.api('GET', `/contacts/fields/${encodeURIComponent(field)}/values`);
        expect(res.status, `${field}: ${res.text}`).toBe(200);
        expect(res.body.field).toBe(`data.${name}`);
        expect(res.body.values).toContain(value);
        if (name !== 'a b') expect(res.body.values).toEqual([value]);
      }
      const usage = await rt.api('GET', `/contacts/fields/${encodeURIComponent(name)}/usage`);
      expect(usage.body.field).toBe(`data.${name}`);
    }

    const del = await rt.api('DELETE', `/contacts/fields/${encodeURIComponent('a%20b')}`);
    expect(del.status, del.text).toBe(200);
    expect(del.body).toEqual({ field: 'data.a%20b', deleted: true });
    const pct = await rt.api('DELETE', `/contacts/fields/${encodeURIComponent('data.%41')}`);
    expect(pct.body).toEqual({ field: 'data.%41', deleted: true });
    await rt.drain();
    expect((await contactByEmail(rt, ann))?.data).toEqual({ 'a b': 'spaced', '50%off': 'yes' });
    expect((await contactByEmail(rt, bob))?.data).toEqual({ 'a b': 'only-spaced', A: 'capital' });
    const fields = (await rt.api('GET', '/contacts/fields')).body.fields.map((f: Json) => f.field);
    expect(fields).toEqual(expect.arrayContaining(['data.a b', 'data.50%off', 'data.A']));
    expect(fields).not.toContain('data.a%20b');
    expect(fields).not.toContain('data.%41');
  });

  it('event names with % round-trip through /events/{eventName}/usage and DELETE /events/{eventName}', async () => {
    const email = uniqueEmail('evpct');
    for (const event of ['promo%20code', 'promo code', '50%off', '%41', 'A']) {
      const res = await rt.api('POST', '/events/track', { body: { email, event } });
      expect(res.status, res.text).toBe(200);
    }
    for (const name of ['promo%20code', '50%off', '%41', 'promo code']) {
      const usage = await rt.api('GET', `/events/${encodeURIComponent(name)}/usage`);
      expect(usage.status).toBe(200);
      expect(usage.body.event).toBe(name);
    }
    const del = await rt.api('DELETE', `/events/${encodeURIComponent('promo%20code')}`);
    expect(del.status, del.text).toBe(202);
    expect(del.body).toMatchObject({ name: 'promo%20code', status: 'queued' });
    const del41 = await rt.api('DELETE', `/events/${encodeURIComponent('%41')}`);
    expect(del41.body).toMatchObject({ name: '%41' });
    await rt.drain();
    const contact = await contactByEmail(rt, email);
    expect((await eventNames(contact!.id)).sort()).toEqual(['50%off', 'A', 'promo code']);
    expect((await rt.api('DELETE', `/events/${encodeURIComponent('promo%20code')}`)).status).toBe(404);
    expect((await rt.api('DELETE', `/events/${encodeURIComponent('50%off')}`)).status).toBe(202);
  });
});

describe('script URLs from contact data', () => {
  const SITES = {
    site: 'javascript:alert(1)',
    mixed: '  JaVaScRiPt:alert(2)',
    control: '\u0001\tjava\nscript:alert(3)',
    vb: 'vbscript:msgbox(4)',
    page: 'data:text/html,<script>alert(5)</script>',
  };
  const BODY =
    '<p><a href="{{data.site}}">a</a> <a href="{{mixed}}">b</a> <a href="{{control}}">c</a>' +
    ' <a href="{{vb}}">d</a> <img src="{{page}}"> <a href="https://example.org/ok?u={{email}}">ok</a>' +
    ' <a href="javascript:history.back()">back</a></p>';

  /** The sent HTML has no script URL from data, and the safe and the author's links as written. */
  function expectNeutralized(html: string | undefined, email: string) {
    expect(html).toBeDefined();
    expect(html).not.toMatch(/alert\(|msgbox|data:text/i);
    expect(html!.match(/"about:blank"/g)).toHaveLength(5);
    expect(html).toContain(`href="https://example.org/ok?u=${email}"`);
    expect(html).toContain('href="javascript:history.back()"');
  }

  it('replaces them with about:blank in /v1/send; a safe link still goes out and is click-tracked', async () => {
    const email = uniqueEmail('script-url');
    expect((await rt.api('POST', '/contacts', { body: { email, data: SITES } })).status).toBe(201);
    const res = await rt.api('POST', '/v1/send', {
      body: { to: email, from: `hello@${rt.senderDomain}`, subject: 'Links', body: BODY },
    });
    expect(res.status, res.text).toBe(200);
    const [mail] = await rt.mails({ to: email });
    expectNeutralized(mail?.html, email);
    expect(mail!.text).not.toMatch(/alert\(/);
    // The safe link is in the message, so the local SES stand-in tracks a click on it; the script
    // URL is not, so a click on it is refused.
    const ok = await rt.api('POST', `/_local/emails/${mail!.id}/click`, {
      body: { link: `https://example.org/ok?u=${email}` },
    });
    expect(ok.status, ok.text).toBe(202);
    const bad = await rt.api('POST', `/_local/emails/${mail!.id}/click`, { body: { link: SITES.site } });
    expect(bad.status).toBe(422);
    await rt.drain();
  });

  it('replaces them in a campaign test send, a workflow SEND_EMAIL step and data given with the request', async () => {
    const email = uniqueEmail('script-url-campaign');
    expect((await rt.api('POST', '/contacts', { body: { email, data: SITES } })).status).toBe(201);
    const campaign = await rt.api('POST', '/campaigns', {
      body: {
        name: 'Links',
        subject: 'Links',
        body: BODY,
        from: `hello@${rt.senderDomain}`,
        audienceType: 'ALL',
        type: 'TRANSACTIONAL',
      },
    });
    expect(campaign.status, campaign.text).toBe(201);
    const test = await rt.api('POST', `/campaigns/${campaign.body.data.id}/test`, { body: { email } });
    expect(test.status, test.text).toBe(200);
    expectNeutralized((await rt.mails({ to: email }))[0]?.html, email);

    // A workflow's SEND_EMAIL step, for a contact started manually.
    const templateId = await createTemplate(rt, `hello@${rt.senderDomain}`, { body: BODY });
    const flow = await linearWorkflow(rt, { triggerType: 'MANUAL' }, [
      { type: 'SEND_EMAIL', config: { templateId, recipient: { type: 'CONTACT' } } },
    ]);
    const flowEmail = uniqueEmail('script-url-workflow');
    const contact = await rt.api('POST', '/contacts', { body: { email: flowEmail, data: SITES } });
    const started = await rt.api('POST', `/workflows/${flow.id}/executions`, {
      body: { contactId: contact.body.id },
    });
    expect(started.status, started.text).toBe(201);
    const [flowMail] = await pollUntil('the workflow mail', async () => {
      const mails = await rt.mails({ to: flowEmail });
      return mails.length > 0 ? mails : undefined;
    });
    expectNeutralized(flowMail?.html, flowEmail);

    const oneOff = uniqueEmail('script-url-request');
    const sent = await rt.api('POST', '/v1/send', {
      body: { to: oneOff, from: `hello@${rt.senderDomain}`, subject: 'Links', body: BODY, data: SITES },
    });
    expect(sent.status, sent.text).toBe(200);
    expectNeutralized((await rt.mails({ to: oneOff }))[0]?.html, oneOff);
  });
});
