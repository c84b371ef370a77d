/**
 * The signed subscription links of sent mail: taken from real messages (List-Unsubscribe header,
 * rendered body), then followed through HTTP like a mail client or a browser would.
 */
import { describe, expect, it } from 'vitest';
import { signToken } from '../../shared/subscriptions/links';
import { contactEvents, uniqueEmail } from './helpers/contacts';
import { useLocalRuntime } from './helpers/local';
import { onlyMailTo } from './helpers/mime';

const rt = useLocalRuntime();

const from = () => `news@${rt.senderDomain}`;

/** Links of a marketing message to a new subscribed contact: [List-Unsubscribe, manage, subscribe]. */
async function linksFor(email: string) {
  const tpl = await rt.api('POST', '/templates', {
    body: {
      name: 'links',
      subject: 'Links',
      body: '<a href="{{unsubscribeUrl}}">u</a><a href="{{manageUrl}}">m</a><a href="{{subscribeUrl}}">s</a>',
      from: from(),
      type: 'MARKETING',
    },
  });
  const sent = await rt.api('POST', '/v1/send', {
    body: { to: email, template: tpl.body.id, subscribed: true },
  });
  expect(sent.status).toBe(200);
  expect(sent.body.data.emails[0].status).toBe('sent');
  const { raw } = await onlyMailTo(rt, email);
  const hrefs = [...raw.html!.matchAll(/href="([^"]+)"/g)].map((m) => m[1]!);
  const listUnsubscribe = raw.header('list-unsubscribe')!.slice(1, -1);
  expect(hrefs[0]).toBe(listUnsubscribe);
  const pathOf = (url: string) => new URL(url).pathname;
  return {
    contactId: sent.body.data.emails[0].contact.id as string,
    emailId: sent.body.data.emails[0].email as string,
    unsubscribe: pathOf(listUnsubscribe),
    manage: pathOf(hrefs[1]!),
    subscribe: pathOf(hrefs[2]!),
  };
}

const subscribed = async (contactId: string) =>
  (await rt.api('GET', `/contacts/${contactId}`)).body.subscribed;

const form = (fields: Record<string, string>) => ({
  raw: new URLSearchParams(fields).toString(),
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  key: null,
});

describe('GET /v1/subscription/{token}', () => {
  it('shows the state and a form, with security headers, and changes nothing', async () => {
    const email = `o'neil-${Date.now()}@example.org`;
    const links = await linksFor(email);
    const res = await rt.api('GET', links.unsubscribe, { key: null });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-security-policy']).toContain("default-src 'none'");
    expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['cache-control']).toBe('no-store');
    // The address is escaped, never raw HTML.
    expect(res.text).toContain(`o&#39;neil-`);
    expect(res.text).not.toContain(`o'neil-`);
    expect(res.text).toContain(`<form method="post" action="${links.unsubscribe}">`);
    expect(res.text).toContain('name="action" value="unsubscribe"');
    expect(res.text).not.toContain('<script');
    expect(await subscribed(links.contactId)).toBe(true);
    // The send's own lifecycle events only: no subscription change.
    expect(
      (await contactEvents(rt, links.contactId)).map((e) => e.name).filter((n) => !n.startsWith('email.')),
    ).toEqual([]);
  });
});

describe('POST /v1/subscription/{token}', () => {
  it('unsubscribes with RFC 8058 one-click, emits contact.unsubscribed, and later marketing is skipped', async () => {
    const email = uniqueEmail('oneclick');
    const links = await linksFor(email);
    const res = await rt.api('POST', links.unsubscribe, form({ 'List-Unsubscribe': 'One-Click' }));
    expect(res.status).toBe(200);
    expect(res.text).toContain('You have been unsubscribed');
    expect(await subscribed(links.contactId)).toBe(false);
    const events = await contactEvents(rt, links.contactId);
    expect(events.filter((e) => e.name.startsWith('contact.'))).toEqual([
      // The links name the email whose message carried them.
      { name: 'contact.unsubscribed', data: { source: 'one_click_unsubscribe', emailId: links.emailId } },
    ]);
    // Clicking again changes nothing and emits nothing.
    expect((await rt.api('POST', links.unsubscribe, form({ 'List-Unsubscribe': 'One-Click' }))).status).toBe(
      200,
    );
    expect(
      (await contactEvents(rt, links.contactId)).filter((e) => e.name.startsWith('contact.')),
    ).toHaveLength(1);

    const tpl = await rt.api('POST', '/templates', {
      body: { name: 'm', subject: 's', body: 'b', from: from(), type: 'MARKETING' },
    });
    const again = await rt.api('POST', '/v1/send', { body: { to: email, template: tpl.body.id } });
    expect(again.body.data.emails[0]).toMatchObject({ status: 'skipped', reason: 'unsubscribed' });
    expect(await rt.mails({ to: email })).toHaveLength(1);
  });

  it('accepts the one-click body as multipart/form-data too', async () => {
    const links = await linksFor(uniqueEmail('multipart'));
    const boundary = 'XyZ123';
    const raw = `--${boundary}\r\nContent-Disposition: form-data; name="List-Unsubscribe"\r\n\r\nOne-Click\r\n--${boundary}--\r\n`;
    const res = await rt.api('POST', links.unsubscribe, {
      raw,
      key: null,
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    });
    expect(res.status).toBe(200);
    expect(await subscribed(links.contactId)).toBe(false);
  });

  it('unsubscribes from the page form and subscribes again through the manage link', async () => {
    const links = await linksFor(uniqueEmail('manage'));
    const off = await rt.api('POST', links.unsubscribe, form({ action: 'unsubscribe' }));
    expect(off.status).toBe(200);
    expect(await subscribed(links.contactId)).toBe(false);
    // The page offers to undo through the manage link.
    expect(off.text).toContain(`action="${links.manage}"`);
    const page = await rt.api('GET', links.manage, { key: null });
    expect(page.text).toContain('value="subscribe"');
    const on = await rt.api('POST', links.manage, form({ action: 'subscribe' }));
    expect(on.status).toBe(200);
    expect(on.text).toContain('You are subscribed again');
    expect(await subscribed(links.contactId)).toBe(true);
    const names = (await contactEvents(rt, links.contactId))
      .map((e) => e.name)
      .filter((n) => n.startsWith('contact.'));
    expect(names.sort()).toEqual(['contact.subscribed', 'contact.unsubscribed']);
  });

  it('lets a link make only its own change', async () => {
    const links = await linksFor(uniqueEmail('scope'));
    const res = await rt.api('POST', links.unsubscribe, form({ action: 'subscribe' }));
    expect(res.status).toBe(400);
    expect(res.text).toContain('This link cannot subscribe');
    await rt.api('POST', links.unsubscribe, form({ action: 'unsubscribe' }));
    const viaSubscribe = await rt.api('POST', links.subscribe, form({ action: 'unsubscribe' }));
    expect(viaSubscribe.status).toBe(400);
    expect(await subscribed(links.contactId)).toBe(false);
    expect((await rt.api('POST', links.subscribe, form({ action: 'subscribe' }))).status).toBe(200);
    expect(await subscribed(links.contactId)).toBe(true);
    const missing = await rt.api('POST', links.manage, form({}));
    expect(missing.status).toBe(400);
    expect(await subscribed(links.contactId)).toBe(true);
  });
});

describe('bad links', () => {
  it('answers 404 for a tampered or foreign-key token and 400 for a malformed one, changing nothing', async () => {
    const links = await linksFor(uniqueEmail('tamper'));
    const token = links.unsubscribe.split('/').pop()!;
    const flipped = token.slice(0, 10) + (token[10] === 'A' ? 'B' : 'A') + token.slice(11);
    const forged = signToken('another-secret-that-is-long-enough-123', {
      projectId: rt.projectId,
      contactId: links.contactId,
      action: 'unsubscribe',
    });
    for (const bad of [flipped, forged, `${token}AA`]) {
      const get = await rt.api('GET', `/v1/subscription/${bad}`, { key: null });
      expect(get.status, bad).toBe(404);
      expect(get.headers['content-type']).toBe('text/html; charset=utf-8');
      const post = await rt.api('POST', `/v1/subscription/${bad}`, form({ 'List-Unsubscribe': 'One-Click' }));
      expect(post.status, bad).toBe(404);
    }
    for (const malformed of [
      'short',
      'has%20space-and-more-characters-here',
      '<script>alert(1)</script>xxxxxxxxxxxxxxxx',
    ]) {
      const res = await rt.api('GET', `/v1/subscription/${encodeURIComponent(malformed)}`, { key: null });
      expect(res.status, malformed).toBe(400);
      expect(res.text).not.toContain('<script>');
    }
    expect(await subscribed(links.contactId)).toBe(true);
    // The send's own lifecycle events only: no subscription change.
    expect(
      (await contactEvents(rt, links.contactId)).map((e) => e.name).filter((n) => !n.startsWith('email.')),
    ).toEqual([]);
  });

  it('answers 404 once the contact is deleted', async () => {
    const links = await linksFor(uniqueEmail('deleted'));
    expect((await rt.api('DELETE', `/contacts/${links.contactId}`)).status).toBe(200);
    expect((await rt.api('GET', links.unsubscribe, { key: null })).status).toBe(404);
    expect((await rt.api('POST', links.unsubscribe, form({ 'List-Unsubscribe': 'One-Click' }))).status).toBe(
      404,
    );
    await rt.drain();
  });
});
