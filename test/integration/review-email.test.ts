/**
 * Edge cases of the spec's template syntax, custom-data rules and Idempotency-Key limits not
 * shown elsewhere: `??` with falsy values, reserved data keys at send time, escaping through the
 * rewritten syntax, and required template fields on PATCH.
 */
import { describe, expect, it } from 'vitest';
import { uniqueEmail } from './helpers/contacts';
import { useLocalRuntime } from './helpers/local';
import { onlyMailTo } from './helpers/mime';

const rt = useLocalRuntime();
const from = () => `news@${rt.senderDomain}`;

describe('template rendering', () => {
  it('applies ?? only to missing or null values, not to 0 or false', async () => {
    const to = uniqueEmail('dflt');
    const res = await rt.api('POST', '/v1/send', {
      body: {
        to,
        from: from(),
        subject: 'S {{ first name ?? Friend }}',
        body: '<p>{{count ?? 5}}|{{flag ?? "yes"}}|{{first name ?? Friend}}|{{profile.tier ?? basic}}|{{ gone ?? "a b" }}|{{profile.level ?? 3}}</p>',
        data: { count: 0, flag: false, profile: { tier: 'gold' }, gone: null },
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const { raw } = await onlyMailTo(rt, to);
    expect(raw.parsed.subject).toBe('S Friend');
    expect(raw.html).toBe('<p>0|false|Friend|gold|a b|3</p>');
  });

  it('does not let request data override email, id or the signed links', async () => {
    const to = uniqueEmail('resv');
    const res = await rt.api('POST', '/v1/send', {
      body: {
        to,
        from: from(),
        subject: 's',
        body: '<p>{{email}}|{{id}}|{{unsubscribeUrl}}|{{subscribeUrl}}|{{manageUrl}}</p>',
        data: {
          email: 'evil@example.org',
          id: 'evil',
          unsubscribeUrl: 'http://evil',
          subscribeUrl: 'http://evil',
          manageUrl: 'http://evil',
        },
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const [entry] = res.body.data.emails;
    const { raw } = await onlyMailTo(rt, to);
    expect(raw.html).not.toContain('evil');
    expect(raw.html).toMatch(new RegExp(`^<p>${to}\\|${entry.contact.id}\\|http`));
    expect((await rt.api('GET', `/contacts/${entry.contact.id}`)).body.data).toEqual({});
  });

  it('HTML-escapes values read through ??, spaces, brackets, paths and filters', async () => {
    const to = uniqueEmail('escx');
    const v = '<i>"x"&</i>';
    const res = await rt.api('POST', '/v1/send', {
      body: {
        to,
        from: from(),
        subject: 's',
        body: '{{t ?? d}}|{{first name}}|{{data[first name] | upcase}}|{{p.q}}|{{t | append: "!"}}',
        data: { t: v, 'first name': v, p: { q: v } },
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const { raw } = await onlyMailTo(rt, to);
    expect(raw.html).toBe(
      [
        '&lt;i&gt;&#34;x&#34;&amp;&lt;/i&gt;',
        '&lt;i&gt;&#34;x&#34;&amp;&lt;/i&gt;',
        '&lt;I&gt;&#34;X&#34;&amp;&lt;/I&gt;',
        '&lt;i&gt;&#34;x&#34;&amp;&lt;/i&gt;',
        '&lt;i&gt;&#34;x&#34;&amp;&lt;/i&gt;!',
      ].join('|'),
    );
  });
});

describe('custom data through /v1/track', () => {
  it('silently drops reserved keys and keeps the rest', async () => {
    const res = await rt.api('POST', '/v1/track', {
      key: rt.publicKey,
      body: {
        email: uniqueEmail('trk'),
        event: 'e',
        data: { id: 'x', email: 'y', unsubscribeUrl: 'z', plan: 'p' },
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect((await rt.api('GET', `/contacts/${res.body.data.contact}`)).body.data).toEqual({ plan: 'p' });
  });
});

describe('PATCH /templates/{id}', () => {
  it('refuses clearing a required field and changes nothing', async () => {
    const t = await rt.api('POST', '/templates', {
      body: { name: 't', subject: 's', body: 'b', from: from() },
    });
    expect(t.status).toBe(201);
    for (const field of ['name', 'subject', 'body', 'from']) {
      const res = await rt.api('PATCH', `/templates/${t.body.id}`, { body: { [field]: null } });
      expect(res.status, `${field}: ${JSON.stringify(res.body)}`).toBe(422);
    }
    expect((await rt.api('GET', `/templates/${t.body.id}`)).body).toEqual(t.body);
  });
});

describe('Idempotency-Key', () => {
  it('answers 400 for an empty key and sends nothing', async () => {
    const to = uniqueEmail('emptykey');
    const res = await rt.api('POST', '/v1/send', {
      body: { to, from: from(), subject: 's', body: 'b' },
      headers: { 'idempotency-key': '' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.error.code).toBe('INVALID_IDEMPOTENCY_KEY');
    expect(await rt.mails({ to })).toHaveLength(0);
  });
});
