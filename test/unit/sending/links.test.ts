import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { literalSecret } from '../../../shared/config/env';
import { localLinkSigningSecret } from '../../../shared/local/seed';
import {
  LinkConfigError,
  linkSettings,
  looksLikeToken,
  signToken,
  subscriptionLinks,
  verifyToken,
} from '../../../shared/subscriptions/links';

const secret = 's'.repeat(40);
const claims = {
  projectId: '1b4e28ba-2fa1-41d2-883f-0016d3cca427',
  contactId: '6f1c2d3e-4a5b-4c6d-8e7f-8091a2b3c4d5',
  action: 'unsubscribe' as const,
};

describe('signed subscription tokens', () => {
  it('round-trips compact UUID claims in a short URL-safe token', () => {
    const token = signToken(secret, claims);
    expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(token.length).toBeLessThan(80);
    expect(looksLikeToken(token)).toBe(true);
    expect(verifyToken(secret, token)).toEqual(claims);
  });

  it('round-trips the email a link names, and binds it', () => {
    const withEmail = { ...claims, emailId: '0e9d8c7b-6a59-4483-9271-605f4e3d2c1b' };
    const token = signToken(secret, withEmail);
    expect(token.length).toBeLessThan(100);
    expect(verifyToken(secret, token)).toEqual(withEmail);
    expect(token).not.toBe(signToken(secret, claims));
    // Any change of a byte, the email id's included, is refused.
    const bytes = Buffer.from(token, 'base64url');
    for (const at of [2, 20, 40, 49]) {
      const forged = Buffer.from(bytes);
      forged[at] = forged[at]! ^ 1;
      expect(verifyToken(secret, forged.toString('base64url')), `byte ${at}`).toBeUndefined();
    }
    // A link without an email keeps its shorter form.
    expect(verifyToken(secret, signToken(secret, claims))).toEqual(claims);
  });

  it('round-trips ids that are not UUIDs', () => {
    const other = { projectId: 'proj_Ä', contactId: 'CONTACT-1', action: 'manage' as const };
    expect(verifyToken(secret, signToken(secret, other))).toEqual(other);
  });

  it('binds the action, the contact and the project', () => {
    const tokens = new Set(
      (['unsubscribe', 'subscribe', 'manage'] as const).map((action) =>
        signToken(secret, { ...claims, action }),
      ),
    );
    expect(tokens.size).toBe(3);
    expect(signToken(secret, { ...claims, contactId: claims.projectId })).not.toBe(signToken(secret, claims));
  });

  it('rejects every single-character change, a wrong key, truncation and junk', () => {
    const token = signToken(secret, claims);
    // Every other character at every position, including the unused low bits of the last one.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    for (let i = 0; i < token.length; i++) {
      for (const c of alphabet) {
        if (c === token[i]) continue;
        expect(verifyToken(secret, token.slice(0, i) + c + token.slice(i + 1)), `${i}:${c}`).toBeUndefined();
      }
    }
    expect(verifyToken('t'.repeat(40), token)).toBeUndefined();
    expect(verifyToken(secret, token.slice(0, -2))).toBeUndefined();
    expect(verifyToken(secret, `${token}AAAA`)).toBeUndefined();
    expect(verifyToken(secret, '')).toBeUndefined();
    expect(verifyToken(secret, 'not a token!')).toBeUndefined();
    expect(verifyToken(secret, 'A'.repeat(2000))).toBeUndefined();
  });

  it('builds the three links under the public base URL', () => {
    const links = subscriptionLinks(
      { secret, baseUrl: 'https://mail.example.com' },
      claims.projectId,
      claims.contactId,
    );
    for (const [action, url] of [
      ['unsubscribe', links.unsubscribeUrl],
      ['subscribe', links.subscribeUrl],
      ['manage', links.manageUrl],
    ] as const) {
      const match = /^https:\/\/mail\.example\.com\/v1\/subscription\/([A-Za-z0-9_-]+)$/.exec(url);
      expect(match, url).not.toBeNull();
      expect(verifyToken(secret, match![1]!)).toEqual({ ...claims, action });
    }
  });

  it('needs the signing secret and base URL to be configured', async () => {
    await expect(
      linkSettings({ linkSigningSecret: literalSecret(undefined), publicBaseUrl: 'https://x' }),
    ).rejects.toThrow(LinkConfigError);
    await expect(
      linkSettings({ linkSigningSecret: literalSecret(secret), publicBaseUrl: undefined }),
    ).rejects.toThrow(/PUBLIC_BASE_URL/);
    await expect(
      linkSettings({ linkSigningSecret: literalSecret('short'), publicBaseUrl: 'https://x' }),
    ).rejects.toThrow(/at least 32 characters/);
  });

  it('loads the secret through the config, on every call (the loader caches, not linkSettings)', async () => {
    let calls = 0;
    const linkSigningSecret = async () => {
      calls += 1;
      return secret;
    };
    expect(await linkSettings({ linkSigningSecret, publicBaseUrl: 'https://x' })).toEqual({
      secret,
      baseUrl: 'https://x',
    });
    await linkSettings({ linkSigningSecret, publicBaseUrl: 'https://x' });
    expect(calls).toBe(2);
  });

  it('propagates a loader failure (for example SSM refusing the read)', async () => {
    const linkSigningSecret = () => Promise.reject(new Error('AccessDeniedException'));
    await expect(linkSettings({ linkSigningSecret, publicBaseUrl: 'https://x' })).rejects.toThrow(
      'AccessDeniedException',
    );
  });
});

describe('localLinkSigningSecret', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('keeps one secret per data folder (owner-only file) and a fresh one per in-memory run', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sesame-links-'));
    dirs.push(dir);
    const first = localLinkSigningSecret(dir);
    expect(first.length).toBeGreaterThanOrEqual(32);
    expect(localLinkSigningSecret(dir)).toBe(first);
    const file = join(dir, 'link-signing-secret');
    expect(readFileSync(file, 'utf8').trim()).toBe(first);
    expect(statSync(file).mode & 0o077).toBe(0);
    expect(localLinkSigningSecret(undefined)).not.toBe(localLinkSigningSecret(undefined));
  });
});
