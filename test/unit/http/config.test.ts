/**
 * `GET /config`: exactly the fields decisions.md names ("Uploads and configuration"), each true to
 * the deployment, and the version read from package.json without bundling the rest of it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as esbuild from 'esbuild';
import { describe, expect, it } from 'vitest';
import { configBody } from '../../../functions/http/config/index';
import { esbuildOptions } from '../../../lib/bundling';
import { parseLocalSettings } from '../../../shared/composition/local';
import { parseEnv, toAppConfig } from '../../../shared/config/env';
import { VERSION } from '../../../shared/version';

const root = join(import.meta.dirname, '..', '..', '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Record<string, unknown>;
const config = (env: Record<string, string>) => ({
  config: toAppConfig(parseEnv({ TABLE_NAME: 't', ...env })),
});

describe('GET /config', () => {
  it('answers exactly oauthProviders, signupEnabled, billing, storage, smtp and version', () => {
    expect(configBody(config({}))).toEqual({
      oauthProviders: [],
      signupEnabled: false,
      billing: { enabled: false },
      storage: { enabled: false },
      smtp: { enabled: false },
      version: pkg.version,
    });
  });

  it('follows the deployment: signup, a Stripe key, the images bucket and its public URL', () => {
    expect(
      configBody(
        config({
          SIGNUP_ENABLED: 'true',
          STRIPE_SECRET_KEY: 'sk_test_x',
          IMAGE_BUCKET: 'images',
          IMAGE_BASE_URL: 'https://d111111abcdef8.cloudfront.net',
        }),
      ),
    ).toMatchObject({ signupEnabled: true, billing: { enabled: true }, storage: { enabled: true } });
    // Storage is image uploads: both variables, and not the CSV upload bucket.
    expect(configBody(config({ IMAGE_BUCKET: 'images' })).storage).toEqual({ enabled: false });
    expect(configBody(config({ UPLOAD_BUCKET: 'uploads' })).storage).toEqual({ enabled: false });
  });

  it('says storage is enabled locally, where the runtime stores and serves images itself', () => {
    expect(configBody(parseLocalSettings({})).storage).toEqual({ enabled: true });
  });
});

describe('VERSION', () => {
  it("is package.json's version", () => {
    expect(VERSION).toBe(pkg.version);
    expect(VERSION).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('brings only that field of package.json into the config function bundle', async () => {
    const entry = join(root, 'functions/http/config/index.ts');
    const result = await esbuild.build({
      ...esbuildOptions(entry, join(root, 'cdk.out', 'unused')),
      write: false,
    });
    const code = result.outputFiles.map((f) => f.text).join('\n');
    expect(code).toContain(JSON.stringify(pkg.version));
    for (const field of [pkg.description, 'devDependencies', 'aws-sdk-client-mock', 'bench:bundles'])
      expect(code, String(field)).not.toContain(String(field));
  });
});
