/**
 * POST /v1/send end to end: each test sends through HTTP and reads the message back from the
 * mail sink as raw MIME (recipients, headers, parts, attachments, rendered variables).
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { EMAIL_FAILED, EMAIL_SENT } from '../../shared/sending/service';
import { contactEvents, postContact, uniqueEmail } from './helpers/contacts';
import { useLocalRuntime } from './helpers/local';
import { emailRecord, onlyMailTo, rawMail } from './helpers/mime';

const rt = useLocalRuntime();

const from = () => `news@${rt.senderDomain}`;

/** JSON with object keys sorted: what an Idempotency-Key record hashes. */
const canonical = (value: unknown): string =>
  Array.isArray(value)
    ? `[${value.map(canonical).join(',')}]`
    : value !== null && typeof value === 'object'
      ? `{${Object.keys(value)
          .sort()
          .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
          .join(',')}}`
      : JSON.stringify(value);

async function send(body: Record<string, unknown>, headers?: Record<string, string>) {
  const res = await rt.api('POST', '/v1/send', { body, headers });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data as {
    emails: { contact: { id: string; email: string }; email: string; status: string; reason?: string }[];
    timestamp: string;
  };
}

async function template(body: Record<string, unknown>) {
  const res = await rt.api('POST', '/templates', {
    body: { name: 't', subject: 's', body: '<p>b</p>', from: from(), ...body },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
}

describe('POST /v1/send with subject and body', () => {
  it('sends one message, answers the Send result, and records the email and its event', async () => {
    const to = uniqueEmail('plain');
    const data = await send({ to, from: from(), subject: 'Your code', body: '<h1>Code</h1><p>1234</p>' });
    expect(data.emails).toHaveLength(1);
    const [entry] = data.emails;
    expect(entry).toMatchObject({ contact: { email: to }, status: 'sent', email: expect.any(String) });
    expect(Date.parse(data.timestamp)).not.toBeNaN();

    const { mail, raw } = await onlyMailTo(rt, to);
    expect(mail.to).toEqual([to]);
    expect(mail.from).toBe(from());
    expect(mail.tags).toEqual({ projectId: rt.projectId, emailId: entry!.email });
    expect(raw.header('subject')).toBe('Your code');
    expect(raw.header('to')).toBe(to);
    expect(raw.header('from')).toBe(from());
    expect(raw.header('mime-version')).toBe('1.0');
    expect(raw.header('content-type')).toMatch(/^multipart\/alternative/);
    expect(raw.html).toBe('<h1>Code</h1><p>1234</p>');
    // Plain-text alternative derived from the HTML.
    expect(raw.parsed.text).toMatch(/CODE\s+1234/);
    // Transactional content: no footer, no list headers.
    expect(raw.header('list-unsubscribe')).toBeUndefined();
    expect(raw.header('list-unsubscribe-post')).toBeUndefined();
    expect(raw.parsed.html).not.toContain('Unsubscribe');

    // SES's events (here the mail sink's) then move the record on: DELIVERED.
    await rt.drain();
    const record = await emailRecord(rt, entry!.email);
    expect(record).toMatchObject({
      id: entry!.email,
      contactId: entry!.contact.id,
      to,
      from: from(),
      subject: 'Your code',
      templateId: null,
      type: 'TRANSACTIONAL',
      status: 'DELIVERED',
      messageId: mail.id,
      sentAt: expect.any(String),
      deliveredAt: expect.any(String),
    });
    const events = (await contactEvents(rt, entry!.contact.id)).filter((e) => e.name === EMAIL_SENT);
    expect(events).toEqual([
      {
        name: EMAIL_SENT,
        data: {
          emailId: entry!.email,
          messageId: mail.id,
          subject: 'Your code',
          from: from(),
          templateId: null,
        },
      },
    ]);
  });

  it('creates new contacts unsubscribed unless subscribed is given, and keeps existing ones', async () => {
    const plain = uniqueEmail('new');
    const [a] = (await send({ to: plain, from: from(), subject: 's', body: 'b' })).emails;
    expect((await rt.api('GET', `/contacts/${a!.contact.id}`)).body.subscribed).toBe(false);

    const opted = uniqueEmail('opted');
    const [b] = (await send({ to: opted, from: from(), subject: 's', body: 'b', subscribed: true })).emails;
    expect((await rt.api('GET', `/contacts/${b!.contact.id}`)).body.subscribed).toBe(true);

    const existing = await postContact(rt, { email: uniqueEmail('old'), subscribed: true });
    await send({ to: existing.email, from: from(), subject: 's', body: 'b' });
    expect((await rt.api('GET', `/contacts/${existing.id}`)).body.subscribed).toBe(true);
    // An explicit change is a subscription event (source: send).
    await send({ to: existing.email, from: from(), subject: 's', body: 'b', subscribed: false });
    expect((await rt.api('GET', `/contacts/${existing.id}`)).body.subscribed).toBe(false);
    const events = await contactEvents(rt, existing.id);
    expect(events.filter((e) => e.name.startsWith('contact.'))).toEqual([
      { name: 'contact.unsubscribed', data: { source: 'send' } },
    ]);
  });

  it('processes each recipient of a list on its own: one contact, one message, one record each', async () => {
    const first = uniqueEmail('list1');
    const second = uniqueEmail('list2');
    const data = await send({
      to: [first, { name: 'Zoë Ünal', email: second }],
      from: { name: 'Support Team', email: from() },
      subject: 'Hello {{ email }}',
      body: '<p>id={{ id }}</p>',
    });
    expect(data.emails.map((e) => e.contact.email)).toEqual([first, second]);
    expect(new Set(data.emails.map((e) => e.email)).size).toBe(2);
    for (const entry of data.emails) {
      const { raw } = await onlyMailTo(rt, entry.contact.email);
      expect(raw.parsed.to).toHaveLength(1);
      expect(raw.parsed.subject).toBe(`Hello ${entry.contact.email}`);
      expect(raw.html).toBe(`<p>id=${entry.contact.id}</p>`);
      expect(raw.parsed.from).toEqual({ name: 'Support Team', address: from() });
    }
    const { raw } = await onlyMailTo(rt, second);
    // Non-ASCII display names are RFC 2047 encoded on the wire and decode back.
    expect(raw.source).toMatch(/^To: =\?UTF-8\?/m);
    expect(raw.parsed.to?.[0]).toEqual({ name: 'Zoë Ünal', address: second });
  });

  it('uses the deprecated name only when from is a plain address', async () => {
    const a = uniqueEmail('name1');
    await send({ to: a, from: from(), name: 'Legacy Name', subject: 's', body: 'b' });
    expect((await onlyMailTo(rt, a)).raw.parsed.from).toEqual({ name: 'Legacy Name', address: from() });
    const b = uniqueEmail('name2');
    await send({
      to: b,
      from: { name: 'Object Name', email: from() },
      name: 'Legacy Name',
      subject: 's',
      body: 'b',
    });
    expect((await onlyMailTo(rt, b)).raw.parsed.from).toEqual({ name: 'Object Name', address: from() });
  });

  it('encodes non-ASCII subjects (RFC 2047) and sets Reply-To and custom headers', async () => {
    const to = uniqueEmail('hdr');
    await send({
      to,
      from: from(),
      subject: 'Grüße aus Köln ✓',
      body: '<p>x</p>',
      reply: 'support@example.org',
      headers: { 'X-Entity-Ref-ID': 'order-42', 'X-Priority': '1' },
    });
    const { raw } = await onlyMailTo(rt, to);
    expect(raw.source).toMatch(/^Subject: =\?UTF-8\?/m);
    expect(raw.parsed.subject).toBe('Grüße aus Köln ✓');
    expect(raw.header('reply-to')).toBe('support@example.org');
    expect(raw.header('x-entity-ref-id')).toBe('order-42');
    expect(raw.header('x-priority')).toBe('1');
  });

  it('attaches files and inline images with their names, types, dispositions and bytes', async () => {
    const to = uniqueEmail('att');
    const pdf = Buffer.from('%PDF-1.4 fake pdf bytes \u0000\u0001\u00ff', 'latin1');
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
    await send({
      to,
      from: from(),
      subject: 'Invoice',
      body: '<p>See attached</p><img src="cid:logo@sesame">',
      attachments: [
        { filename: 'invoice.pdf', content: pdf.toString('base64'), contentType: 'application/pdf' },
        {
          filename: 'logo.png',
          content: png.toString('base64'),
          contentType: 'image/png',
          contentId: 'logo@sesame',
          disposition: 'inline',
        },
        // Line-wrapped base64, as MIME encoders write it, is accepted.
        {
          filename: 'notes.txt',
          content: Buffer.from('a'.repeat(100))
            .toString('base64')
            .replace(/(.{76})/g, '$1\r\n'),
          contentType: 'text/plain; charset=utf-8',
          disposition: 'attachment',
        },
      ],
    });
    const { raw } = await onlyMailTo(rt, to);
    expect(raw.header('content-type')).toMatch(/^multipart\/mixed/);
    expect(raw.source).toMatch(/multipart\/related/);
    const byName = Object.fromEntries(raw.parsed.attachments.map((a) => [a.filename, a]));
    expect(Object.keys(byName).sort()).toEqual(['invoice.pdf', 'logo.png', 'notes.txt']);
    expect(byName['invoice.pdf']).toMatchObject({ mimeType: 'application/pdf', disposition: 'attachment' });
    expect(Buffer.from(byName['invoice.pdf']!.content as ArrayBuffer).equals(pdf)).toBe(true);
    expect(byName['logo.png']).toMatchObject({
      mimeType: 'image/png',
      disposition: 'inline',
      contentId: '<logo@sesame>',
    });
    expect(Buffer.from(byName['logo.png']!.content as ArrayBuffer).equals(png)).toBe(true);
    expect(Buffer.from(byName['notes.txt']!.content as ArrayBuffer).toString()).toBe('a'.repeat(100));
    expect(raw.parsed.html).toContain('cid:logo@sesame');
  });
});

describe('POST /v1/send with a template', () => {
  it('renders the spec syntax with contact data merged with request data', async () => {
    const to = uniqueEmail('vars');
    const stored = await postContact(rt, {
      email: to,
      data: { 'first name': 'Ann', profile: { tier: 'gold' }, plan: 'pro' },
    });
    const id = await template({
      type: 'TRANSACTIONAL',
      subject: 'Hi {{first name}}, your {{ plan }} plan',
      body: [
        '<p>{{ first name }}|{{nickname ?? Friend}}|{{ missing ?? "dear customer" }}|{{ count ?? 0 }}</p>',
        '<p>{{profile.tier}}|{{data[first name] | upcase}}|{{ data["plan"] }}|{{ unknown.deep.path }}</p>',
        '<p>{% if profile.tier == "gold" %}VIP{% else %}regular{% endif %}</p>',
        '<ul>{% for item in items %}<li>{{ item.name }}={{ item.qty | times: 2 }}</li>{% endfor %}</ul>',
        '<p>{{ code }}|{{ email }}|{{ id }}</p>',
      ].join(''),
    });
    const data = await send({
      to,
      template: id,
      data: {
        plan: 'team',
        items: [
          { name: 'pen', qty: 2 },
          { name: 'ink', qty: 5 },
        ],
        code: { value: 'X-99', persistent: false },
      },
    });
    const [entry] = data.emails;
    expect(entry).toMatchObject({ contact: { id: stored.id }, status: 'sent' });
    const { raw } = await onlyMailTo(rt, to);
    expect(raw.parsed.subject).toBe('Hi Ann, your team plan');
    expect(raw.html).toBe(
      '<p>Ann|Friend|dear customer|0</p>' +
        '<p>gold|ANN|team|</p>' +
        '<p>VIP</p>' +
        '<ul><li>pen=4</li><li>ink=10</li></ul>' +
        `<p>X-99|${to}|${stored.id}</p>`,
    );
    // Request data was stored (patched), the non-persistent value was used once only.
    const after = (await rt.api('GET', `/contacts/${stored.id}`)).body;
    expect(after.data).toMatchObject({ plan: 'team', 'first name': 'Ann', profile: { tier: 'gold' } });
    expect(after.data.code).toBeUndefined();
    expect(await emailRecord(rt, entry!.email)).toMatchObject({
      templateId: id,
      subject: 'Hi Ann, your team plan',
    });
  });

  it('escapes contact values in HTML unless | raw, and strips CR/LF from rendered subjects', async () => {
    const to = uniqueEmail('esc');
    const id = await template({
      type: 'TRANSACTIONAL',
      subject: 'Re: {{ title }}',
      body: '<p title="{{ title }}">{{ title }}</p><div>{{ snippet | raw }}</div>',
    });
    await send({
      to,
      template: id,
      data: { title: '<script>alert("x")</script>\r\nBcc: evil@example.org', snippet: '<b>bold</b>' },
    });
    const { raw } = await onlyMailTo(rt, to);
    expect(raw.html).toBe(
      '<p title="&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;\nBcc: evil@example.org">' +
        '&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;\nBcc: evil@example.org</p><div><b>bold</b></div>',
    );
    expect(raw.parsed.subject).toBe('Re: <script>alert("x")</script> Bcc: evil@example.org');
    expect(raw.header('bcc')).toBeUndefined();
    expect(raw.parsed.bcc).toBeUndefined();
  });

  it("takes the template's subject, body, from, fromName and replyTo, and lets request fields override them", async () => {
    const id = await template({
      type: 'TRANSACTIONAL',
      subject: 'Template subject',
      body: '<p>Template body</p>',
      fromName: 'Template Sender',
      replyTo: 'template-reply@example.org',
    });
    const a = uniqueEmail('tpl');
    await send({ to: a, template: id });
    const first = (await onlyMailTo(rt, a)).raw;
    expect(first.parsed.subject).toBe('Template subject');
    expect(first.html).toBe('<p>Template body</p>');
    expect(first.parsed.from).toEqual({ name: 'Template Sender', address: from() });
    expect(first.header('reply-to')).toBe('template-reply@example.org');

    const b = uniqueEmail('override');
    await send({
      to: b,
      template: id,
      subject: 'Own subject',
      from: { name: 'Own Sender', email: `own@${rt.senderDomain}` },
      reply: 'own-reply@example.org',
    });
    const second = (await onlyMailTo(rt, b)).raw;
    expect(second.parsed.subject).toBe('Own subject');
    expect(second.html).toBe('<p>Template body</p>');
    expect(second.parsed.from).toEqual({ name: 'Own Sender', address: `own@${rt.senderDomain}` });
    expect(second.header('reply-to')).toBe('own-reply@example.org');
  });
});

describe('content types', () => {
  it('MARKETING: skips unsubscribed contacts, and gives subscribed ones a footer link and list headers', async () => {
    const id = await template({
      type: 'MARKETING',
      subject: 'News',
      body: '<html><body><p>Big news</p></body></html>',
    });
    const out = uniqueEmail('mk-out');
    const inn = uniqueEmail('mk-in');
    await postContact(rt, { email: inn, subscribed: true });
    const data = await send({ to: [out, inn], template: id });
    // A new contact from /v1/send is unsubscribed, so marketing skips it, saying why.
    expect(data.emails[0]).toMatchObject({
      contact: { email: out },
      status: 'skipped',
      reason: 'unsubscribed',
    });
    expect(data.emails[1]).toMatchObject({ contact: { email: inn }, status: 'sent' });
    expect(await rt.mails({ to: out })).toHaveLength(0);
    expect(await emailRecord(rt, data.emails[0]!.email)).toMatchObject({
      status: 'SKIPPED',
      reason: 'unsubscribed',
    });
    expect((await contactEvents(rt, data.emails[0]!.contact.id)).map((e) => e.name)).toEqual([]);

    const { raw } = await onlyMailTo(rt, inn);
    const list = raw.header('list-unsubscribe');
    expect(list).toMatch(/^<http:\/\/127\.0\.0\.1:\d+\/v1\/subscription\/[A-Za-z0-9_-]+>$/);
    expect(raw.header('list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
    const url = list!.slice(1, -1);
    expect(raw.parsed.html).toContain(`<a href="${url}">Unsubscribe</a></p></body>`);
    expect(raw.parsed.text).toContain(url);
  });

  it('MARKETING: no footer when the body already links unsubscribeUrl', async () => {
    const id = await template({
      type: 'MARKETING',
      body: '<p>News</p><a href="{{ unsubscribeUrl }}">Stop these</a> <a href="{{manageUrl}}">Manage</a>',
    });
    const to = uniqueEmail('mk-own');
    await postContact(rt, { email: to, subscribed: true });
    await send({ to, template: id });
    const { raw } = await onlyMailTo(rt, to);
    const url = raw.header('list-unsubscribe')!.slice(1, -1);
    expect(raw.html).toMatch(
      new RegExp(
        `^<p>News</p><a href="${url}">Stop these</a> <a href="http://[^"]+/v1/subscription/[^"]+">Manage</a>$`,
      ),
    );
    expect(raw.parsed.html!.match(/\/v1\/subscription\//g)).toHaveLength(2);
  });

  it('TRANSACTIONAL: always sent, without footer or list headers', async () => {
    const id = await template({ type: 'TRANSACTIONAL', body: '<p>Receipt</p>' });
    const to = uniqueEmail('tx');
    await postContact(rt, { email: to, subscribed: false });
    const [entry] = (await send({ to, template: id })).emails;
    expect(entry!.status).toBe('sent');
    const { raw } = await onlyMailTo(rt, to);
    expect(raw.html).toBe('<p>Receipt</p>');
    expect(raw.header('list-unsubscribe')).toBeUndefined();
    expect(raw.header('list-unsubscribe-post')).toBeUndefined();
  });

  it('HEADLESS: sent as authored (no footer), subscription respected, list headers kept', async () => {
    const id = await template({ type: 'HEADLESS', body: '<p>Exactly this</p>' });
    const subscribed = uniqueEmail('hl-in');
    await postContact(rt, { email: subscribed, subscribed: true });
    const unsubscribed = uniqueEmail('hl-out');
    await postContact(rt, { email: unsubscribed, subscribed: false });
    const data = await send({ to: [subscribed, unsubscribed], template: id });
    expect(data.emails.map((e) => e.status)).toEqual(['sent', 'skipped']);
    const { raw } = await onlyMailTo(rt, subscribed);
    expect(raw.html).toBe('<p>Exactly this</p>');
    expect(raw.header('list-unsubscribe')).toMatch(/^<http:.*\/v1\/subscription\/.+>$/);
    expect(raw.header('list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
    expect(await rt.mails({ to: unsubscribed })).toHaveLength(0);
  });
});

describe('Idempotency-Key', () => {
  it('sends once per key and answers 409 with the original request on reuse', async () => {
    const to = uniqueEmail('idem');
    const key = `send-${to}`;
    const body = { to, from: from(), subject: 'Once', body: '<p>x</p>' };
    const first = await rt.api('POST', '/v1/send', { body, headers: { 'idempotency-key': key } });
    expect(first.status).toBe(200);
    const again = await rt.api('POST', '/v1/send', { body, headers: { 'idempotency-key': key } });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({
      code: 'IDEMPOTENCY_KEY_REUSED',
      details: {
        key,
        originalRequest: {
          method: 'POST',
          path: '/v1/send',
          bodySha256: expect.stringMatching(/^[0-9a-f]{64}$/),
        },
        originalStatusCode: 200,
      },
    });
    expect(await rt.mails({ to })).toHaveLength(1);
  });

  it('releases the key of a refused request, so a corrected retry can use it', async () => {
    const to = uniqueEmail('idem-fix');
    const key = `fix-${to}`;
    const bad = await rt.api('POST', '/v1/send', {
      body: { to, from: from(), subject: 'x' },
      headers: { 'idempotency-key': key },
    });
    expect(bad.status).toBe(422);
    const good = await rt.api('POST', '/v1/send', {
      body: { to, from: from(), subject: 'x', body: 'y' },
      headers: { 'idempotency-key': key },
    });
    expect(good.status).toBe(200);
    expect(await rt.mails({ to })).toHaveLength(1);
  });

  it('remembers a large request by its hash, never its bytes', async () => {
    const to = uniqueEmail('idem-big');
    const key = `big-${to}`;
    const content = Buffer.alloc(600_000, 7).toString('base64');
    const body = {
      to,
      from: from(),
      subject: 's',
      body: 'b',
      attachments: [{ filename: 'a.bin', content, contentType: 'application/octet-stream' }],
    };
    expect((await rt.api('POST', '/v1/send', { body, headers: { 'idempotency-key': key } })).status).toBe(
      200,
    );
    const again = await rt.api('POST', '/v1/send', { body, headers: { 'idempotency-key': key } });
    expect(again.status).toBe(409);
    expect(again.text.length).toBeLessThan(5000);
    expect(again.body.error.details.originalRequest).toEqual({
      method: 'POST',
      path: '/v1/send',
      bodySha256: createHash('sha256').update(canonical(body)).digest('hex'),
    });
  });
});

describe('provider failures', () => {
  it('records email.failed and answers 502 when the provider refuses the only message', async () => {
    const { PermanentSendError } = await import('../../shared/adapters/aws/send-errors');
    const to = uniqueEmail('perm');
    const original = rt.mailSink.sendRaw.bind(rt.mailSink);
    rt.mailSink.sendRaw = async () => {
      throw new PermanentSendError('MESSAGE_REJECTED', 'Email address is not verified.');
    };
    try {
      const res = await rt.api('POST', '/v1/send', {
        body: { to, from: from(), subject: 'Nope', body: 'b' },
      });
      expect(res.status).toBe(502);
      expect(res.body.error).toMatchObject({ code: 'EMAIL_SEND_FAILED', statusCode: 502 });
      expect(res.body.error.message).toContain('Email address is not verified.');
      const [entry] = res.body.error.details.emails;
      expect(entry).toMatchObject({ contact: { email: to }, status: 'failed', reason: 'MESSAGE_REJECTED' });
      expect(await emailRecord(rt, entry.email)).toMatchObject({
        status: 'FAILED',
        reason: 'MESSAGE_REJECTED',
      });
      expect(await contactEvents(rt, entry.contact.id)).toEqual([
        {
          name: EMAIL_FAILED,
          data: {
            emailId: entry.email,
            subject: 'Nope',
            from: from(),
            templateId: null,
            reason: 'MESSAGE_REJECTED',
            error: 'Email address is not verified.',
          },
        },
      ]);
    } finally {
      rt.mailSink.sendRaw = original;
    }
    expect(await rt.mails({ to })).toHaveLength(0);
  });

  it('retries a throttled send with backoff and succeeds', async () => {
    const { RetryableSendError } = await import('../../shared/adapters/aws/send-errors');
    const to = uniqueEmail('retry');
    const original = rt.mailSink.sendRaw.bind(rt.mailSink);
    let calls = 0;
    rt.mailSink.sendRaw = async (email) => {
      calls++;
      if (calls <= 2) throw new RetryableSendError('RATE_EXCEEDED', 'Maximum sending rate exceeded.');
      return original(email);
    };
    try {
      const data = await send({ to, from: from(), subject: 'Eventually', body: 'b' });
      expect(data.emails[0]!.status).toBe('sent');
    } finally {
      rt.mailSink.sendRaw = original;
    }
    expect(calls).toBe(3);
    expect(await rt.mails({ to })).toHaveLength(1);
  });

  it('gives up after a few throttled attempts with 503 and Retry-After', async () => {
    const { RetryableSendError } = await import('../../shared/adapters/aws/send-errors');
    const { SEND_ATTEMPTS } = await import('../../shared/sending/service');
    const to = uniqueEmail('throttled');
    const original = rt.mailSink.sendRaw.bind(rt.mailSink);
    let calls = 0;
    rt.mailSink.sendRaw = async () => {
      calls++;
      throw new RetryableSendError('RATE_EXCEEDED', 'Maximum sending rate exceeded.');
    };
    try {
      const res = await rt.api('POST', '/v1/send', { body: { to, from: from(), subject: 's', body: 'b' } });
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toBe('60');
      expect(res.body.error.code).toBe('EMAIL_SEND_THROTTLED');
      expect(res.body.error.details.emails[0]).toMatchObject({ status: 'failed', reason: 'RATE_EXCEEDED' });
    } finally {
      rt.mailSink.sendRaw = original;
    }
    expect(calls).toBe(SEND_ATTEMPTS);
  });

  it('stops retrying once the request has used its time budget', async () => {
    const { RetryableSendError } = await import('../../shared/adapters/aws/send-errors');
    const { sendEmails } = await import('../../shared/sending/service');
    const { parseSendRequest } = await import('../../shared/sending/schemas');
    // Each provider call takes ten (fake) seconds; the budget is fifteen.
    let offset = 0;
    let calls = 0;
    const deps = {
      ...rt.deps,
      clock: { now: () => new Date(Date.now() + offset) },
      mailer: {
        maxSendRate: async () => undefined,
        sendRaw: async () => {
          calls++;
          offset += 10_000;
          throw new RetryableSendError('RATE_EXCEEDED', 'Maximum sending rate exceeded.');
        },
      },
    };
    const to = [uniqueEmail('budget1'), uniqueEmail('budget2'), uniqueEmail('budget3')];
    const input = parseSendRequest({ to, from: from(), subject: 's', body: 'b' });
    await expect(sendEmails(deps, rt.projectId, input)).rejects.toMatchObject({ statusCode: 503 });
    // Two attempts for the first recipient (the second ends past the budget), one for each other.
    expect(calls).toBe(4);
  });

  it('answers 200 with per-recipient statuses when only some recipients fail', async () => {
    const { PermanentSendError } = await import('../../shared/adapters/aws/send-errors');
    const ok = uniqueEmail('part-ok');
    const bad = uniqueEmail('part-bad');
    const original = rt.mailSink.sendRaw.bind(rt.mailSink);
    rt.mailSink.sendRaw = async (email) => {
      if (email.to.includes(bad)) throw new PermanentSendError('MESSAGE_REJECTED', 'Rejected');
      return original(email);
    };
    try {
      const data = await send({ to: [ok, bad], from: from(), subject: 's', body: 'b' });
      expect(data.emails.map((e) => [e.contact.email, e.status])).toEqual([
        [ok, 'sent'],
        [bad, 'failed'],
      ]);
    } finally {
      rt.mailSink.sendRaw = original;
    }
    expect(await rt.mails({ to: ok })).toHaveLength(1);
    expect(await rt.mails({ to: bad })).toHaveLength(0);
  });
});

describe('the raw message endpoint of the local runtime', () => {
  it('serves what was sent', async () => {
    const to = uniqueEmail('rawcheck');
    await send({ to, from: from(), subject: 'Raw', body: '<p>r</p>' });
    const [mail] = await rt.mails({ to });
    const raw = await rawMail(rt, mail!.id);
    expect(raw.source).toMatch(/^Subject: Raw$/m);
  });
});
