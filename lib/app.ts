import type { App } from 'aws-cdk-lib';
import type { Manifest } from '../shared/manifest';
import { type StageConfig, stripeSettingsOf } from './config';
import { StatefulStack } from './stateful-stack';
import { StatelessStack } from './stateless-stack';

export interface SesameStacks {
  readonly stateful: StatefulStack;
  readonly stateless: StatelessStack;
}

/**
 * Adds both Sesame stacks for one stage to `app`. Environment-agnostic (no account or region),
 * so `cdk synth` needs no credentials and no lookups.
 */
export function addSesameStacks(
  app: App,
  config: StageConfig,
  options: { manifest?: Manifest } = {},
): SesameStacks {
  const prefix = `Sesame-${config.stage}`;
  const tags = { project: 'sesame', stage: config.stage };
  const stateful = new StatefulStack(app, `${prefix}-Stateful`, {
    description: `Sesame (${config.stage}): table, upload bucket, queues and one-off schedule group`,
    manifest: options.manifest,
    deletionProtection: config.deletionProtection,
    inboundDomain: config.inboundDomain,
    tags,
  });
  const stateless = new StatelessStack(app, `${prefix}-Stateless`, {
    description: `Sesame (${config.stage}): API, functions and schedules`,
    stateful,
    manifest: options.manifest,
    apiThrottle: { rateLimit: config.apiRateLimit, burstLimit: config.apiBurstLimit },
    publicBaseUrl: config.publicBaseUrl,
    signupEnabled: config.signupEnabled,
    systemFrom: config.systemFrom,
    stripe: stripeSettingsOf(config),
    tags,
  });
  return { stateful, stateless };
}
