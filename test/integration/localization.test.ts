/**
 * A contact's `data.locale` chooses the language of what Sesame writes around its mail, through
 * HTTP: the MARKETING footer (HTML and text, on /v1/send and on a campaign's fan-out, whose
 * derived text templates are per language), `{{locale}}` in templates, and the subscription pages
 * its links open, their confirmations (one-click included) and errors. Assertions are on the
 * text a reader sees (html-to-text of the page or part), not on markup.
 */
import { convert } from 'html-to-text';
import { describe, expect, it } from 'vitest';
import { CATALOGUE } from '../../shared/i18n/catalogue';
import { campaignProject, createCampaign, sendNow } from './helpers/campaigns';
import { postContact, uniqueEmail } from './helpers/contacts';
import { useLocalRuntime } from './helpers/local';
import { onlyMailTo, rawMail } from './helpers/mime';

const rt = useLocalRuntime();

/** What a reader sees of a page or an HTML part: its text, whitespace collapsed. */
const visible = (html: string) => convert(html, { wordwrap: false }).replace(/\s+/g, ' ').trim();
const t = (language: string) => CATALOGUE[language]!;

async function marketingTemplate(body: string): Promise<string> {
  const res = await rt.api('POST', '/templates', {
    body: { name: 'l10n', subject: 'News', body, from: `news@${rt.senderDomain}`, type: 'MARKETING' },
  });
  expect(res.status, res.text).toBe(201);
  return res.body.id;
}

/** Sends a MARKETING template to a new subscribed contact of `locale`; its one mail. */
async function mailFor(locale: unknown, template: string) {
  const email = uniqueEmail('l10n');
  await postContact(rt, { email, subscribed: true, ...(locale === undefined ? {} : { data: { locale } }) });
  const sent = await rt.api('POST', '/v1/send', { body: { to: email, template } });
  expect(sent.status, sent.text).toBe(200);
  expect(sent.body.data.emails[0].status).toBe('sent');
  return (await onlyMailTo(rt, email)).raw;
}

const pathOf = (url: string) => new URL(url).pathname;

describe('the MARKETING footer and {{locale}}', () => {
  it.each([
    ['fr', 'fr'],
    ['de-AT', 'de'],
    ['es', 'es'],
    ['pt-BR', 'pt'],
    ['it', 'it'],
    ['nl', 'nl'],
    ['ja', 'en'],
    [undefined, 'en'],
    [42, 'en'],
  ])('data.locale %j: the footer in %s, in HTML and text', async (locale, language) => {
    const template = await marketingTemplate('<html><body><p>Bonjour [{{locale}}]</p></body></html>');
    const raw = await mailFor(locale, template);
    const html = visible(raw.html!);
    expect(html).toContain(`Bonjour [${language}]`);
    expect(html).toContain(`${t(language).footer} ${t(language).footerLink}`);
    expect(raw.parsed.text).toContain(t(language).footer);
    if (language !== 'en') expect(html).not.toContain(t('en').footer);
    // The footer's link is the unsubscribe link, in the language's words.
    const link = raw.header('list-unsubscribe')!.slice(1, -1);
    expect(raw.html).toContain(`<a href="${link}">${t(language).footerLink.replace(/'/g, '&#39;')}</a>`);
  });

  it("a campaign's fan-out gives each recipient the footer of its own language", async () => {
    const p = await campaignProject(rt, 'l10n');
    const languages = ['fr', 'de', 'en', 'nl', 'fr', 'de', 'en', 'nl', 'it', 'pt'];
    const emails = languages.map((l) => uniqueEmail(`camp-${l}`));
    for (const [i, email] of emails.entries()) {
      const res = await p.api('POST', '/contacts', {
        body: { email, subscribed: true, data: languages[i] === 'en' ? {} : { locale: languages[i] } },
      });
      expect(res.status, res.text).toBeLessThan(300);
    }
    const campaign = await createCampaign(p, {
      name: 'Localized',
      subject: 'Hello',
      body: '<html><body><p>Hi {{email}} ({{locale}})</p></body></html>',
      from: p.from,
      type: 'MARKETING',
      audienceType: 'ALL',
    });
    expect(await sendNow(rt, p, campaign.id)).toMatchObject({
      status: 'SENT',
      totalRecipients: emails.length,
    });
    for (const [i, email] of emails.entries()) {
      const mails = await rt.mails({ to: email });
      expect(mails, email).toHaveLength(1);
      const raw = await rawMail(rt, mails[0]!.id);
      const language = languages[i]!;
      expect(visible(raw.html!)).toContain(`(${language}) ${t(language).footer} ${t(language).footerLink}`);
      expect(raw.parsed.text, email).toContain(t(language).footer);
      for (const other of new Set(languages))
        if (other !== language) expect(raw.parsed.text, email).not.toContain(t(other).footer);
    }
  });
});

describe('the subscription pages', () => {
  async function linksOf(locale: string | undefined) {
    const template = await marketingTemplate(
      '<p><a href="{{unsubscribeUrl}}">u</a> <a href="{{manageUrl}}">m</a></p>',
    );
    const raw = await mailFor(locale, template);
    const hrefs = [...raw.html!.matchAll(/href="([^"]+)"/g)].map((m) => m[1]!);
    return { unsubscribe: pathOf(hrefs[0]!), manage: pathOf(hrefs[1]!) };
  }
  const form = (fields: Record<string, string>, headers: Record<string, string> = {}) => ({
    raw: new URLSearchParams(fields).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    key: null,
  });

  it('shows the page, the one-click confirmation and the manage page in the contact language', async () => {
    const links = await linksOf('fr-CA');
    const page = await rt.api('GET', links.unsubscribe, { key: null, headers: { 'accept-language': 'de' } });
    expect(page.status).toBe(200);
    // The contact's language wins over the browser's.
    expect(page.text).toContain('<html lang="fr">');
    expect(visible(page.text)).toContain(t('fr').titleUnsubscribe.toUpperCase());
    expect(visible(page.text)).toContain(t('fr').buttonUnsubscribe);

    const done = await rt.api('POST', links.unsubscribe, form({ 'List-Unsubscribe': 'One-Click' }));
    expect(done.status).toBe(200);
    const seen = visible(done.text);
    expect(seen).toContain(t('fr').titleJustUnsubscribed.toUpperCase());
    expect(seen).toContain(t('fr').noteChangedMind);
    expect(seen).toContain(t('fr').buttonSubscribeAgain);
    expect(seen).toMatch(/est désabonné\(e\) et ne recevra plus ces e-mails/);

    const manage = await rt.api('GET', links.manage, { key: null });
    expect(visible(manage.text)).toContain(t('fr').titleManage.toUpperCase());
    const again = await rt.api('POST', links.manage, form({ action: 'subscribe' }));
    expect(visible(again.text)).toContain(t('fr').titleSubscribedAgain.toUpperCase());
  });

  it("a contact without a locale gets the browser's language; an error page without a contact too", async () => {
    const links = await linksOf(undefined);
    const page = await rt.api('GET', links.unsubscribe, {
      key: null,
      headers: { 'accept-language': 'ja, nl;q=0.8, en;q=0.5' },
    });
    expect(page.text).toContain('<html lang="nl">');
    expect(visible(page.text)).toContain(t('nl').buttonUnsubscribe);
    const plain = await rt.api('GET', links.unsubscribe, { key: null });
    expect(visible(plain.text)).toContain(t('en').titleUnsubscribe.toUpperCase());

    const forged = await rt.api('GET', `${links.unsubscribe.slice(0, -4)}AAAA`, {
      key: null,
      headers: { 'accept-language': 'es-MX,es;q=0.9' },
    });
    expect(forged.status).toBe(404);
    expect(visible(forged.text)).toContain(t('es').titleNotFound.toUpperCase());
    expect(visible(forged.text)).toContain(t('es').linkInvalid);
  });

  it('an error for a known contact is in its language', async () => {
    const links = await linksOf('de');
    const res = await rt.api('POST', links.unsubscribe, form({ action: 'subscribe' }));
    expect(res.status).toBe(400);
    expect(res.text).toContain('<html lang="de">');
    expect(visible(res.text)).toContain(t('de').linkCannotSubscribe);
  });
});
