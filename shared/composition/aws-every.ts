/**
 * Every AWS adapter factory, for tests and tools: an entry point imports only the factories of
 * shared/composition/aws-wiring.ts it uses, never this module (it would bundle every SDK client).
 */
import type { PortUse } from '../manifest';
import { type AwsFunction, portsOfUse } from './aws';
import {
  dynamoStore,
  eventBridgeScheduler,
  route53Zones,
  s3Blobs,
  sesEmailIdentities,
  sesMailer,
  sqsQueue,
  ssmLinkSigningSecret,
  systemDns,
} from './aws-wiring';

/** Every factory: what a function declaring every use would be wired with (tests, tools). */
export const everyPort = {
  store: dynamoStore,
  queue: sqsQueue,
  scheduler: eventBridgeScheduler,
  mailer: sesMailer,
  dns: systemDns,
  emailIdentities: sesEmailIdentities,
  dnsZones: route53Zones,
  blobs: s3Blobs,
  linkSigningSecret: ssmLinkSigningSecret,
} as const;

/** A function declaring every use, wired with every factory (tests, tools). */
export const everyUse: AwsFunction = {
  uses: Object.keys(portsOfUse) as PortUse[],
  wiring: everyPort,
  owner: 'every use',
};
