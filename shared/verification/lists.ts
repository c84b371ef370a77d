/**
 * Domain lists behind the verification flags. The disposable, personal-provider, TLD and typo
 * lists come from maintained packages (updated by bumping them); only the alias list is curated
 * here, because no maintained package lists forwarding services.
 */
import { POPULAR_DOMAINS } from '@zootools/email-spell-checker';
import { disposableEmailBlocklistSet } from 'disposable-email-domains-js';
import providers from 'email-providers/all.json' with { type: 'json' };
import commonProviders from 'email-providers/common.json' with { type: 'json' };
import tlds from 'tlds';

/** Disposable and temporary-inbox domains (the disposable-email-domains project's blocklist). */
export const DISPOSABLE_DOMAINS: ReadonlySet<string> = disposableEmailBlocklistSet();

/**
 * Free and personal mailbox providers (email-providers, from goware/emailproviders). That list
 * also holds disposable services, which are reported as disposable instead.
 */
export const PERSONAL_DOMAINS: ReadonlySet<string> = new Set(
  (providers as string[]).map((d) => d.toLowerCase()).filter((d) => !DISPOSABLE_DOMAINS.has(d)),
);

/**
 * Forwarding and alias services: addresses that relay to a hidden inbox. Curated from each
 * service's published shared domains (Apple Hide My Email, Firefox Relay, DuckDuckGo Email
 * Protection, SimpleLogin, Proton Pass, addy.io, 33mail, IronVest, Erine, Burner Mail); extend it
 * when a service adds one. Per-user subdomains (`me.anonaddy.com`) match too.
 */
export const ALIAS_DOMAINS: ReadonlySet<string> = new Set([
  'privaterelay.appleid.com',
  'mozmail.com',
  'relay.firefox.com',
  'duck.com',
  'simplelogin.com',
  'simplelogin.co',
  'simplelogin.fr',
  'simplelogin.io',
  'aleeas.com',
  'slmail.me',
  'silomails.com',
  'slmails.com',
  '8alias.com',
  '8shield.net',
  'dralias.com',
  'passmail.net',
  'passmail.com',
  'passinbox.com',
  'passfwd.com',
  'anonaddy.com',
  'anonaddy.me',
  'addy.io',
  'addymail.com',
  '33mail.com',
  '33m.co',
  'opayq.com',
  'erine.email',
  'burnermail.io',
]);

/** Top-level domains delegated by IANA (the `tlds` package). */
export const TLDS: ReadonlySet<string> = new Set((tlds as string[]).map((t) => t.toLowerCase()));

/** Domains the typo check suggests: the checker's own popular list plus the common providers. */
export const SPELLING_DOMAINS: readonly string[] = [
  ...new Set([...POPULAR_DOMAINS, ...(commonProviders as string[])].map((d) => d.toLowerCase())),
];

/** The domain and each parent above its top-level domain: `a.b.c.com` -> a.b.c.com, b.c.com, c.com. */
export function domainAndParents(domain: string): string[] {
  const labels = domain.split('.');
  const out: string[] = [];
  for (let i = 0; i < labels.length - 1; i++) out.push(labels.slice(i).join('.'));
  return out;
}

export const inList = (list: ReadonlySet<string>, domain: string) =>
  domainAndParents(domain).some((d) => list.has(d));
