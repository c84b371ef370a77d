/**
 * Every AWS adapter factory, for tests and tools: an entry point imports only the factories of
 * shared/composition/aws-wiring/ it uses, never this module (it would bundle every SDK client).
 */
import type { PortUse } from '../manifest';
import { type AwsFunction, portsOfUse } from './aws';
import { systemDns } from './aws-wiring/dns';
import { dynamoStore } from './aws-wiring/dynamo';
import { route53Zones } from './aws-wiring/route53';
import { s3Blobs } from './aws-wiring/s3';
import { s3Images } from './aws-wiring/s3-images';
import { s3InboundMail } from './aws-wiring/s3-inbound';
import { eventBridgeScheduler } from './aws-wiring/scheduler';
import { sesEmailIdentities } from './aws-wiring/ses-identities';
import { sesMailer } from './aws-wiring/ses-mailer';
import { httpsSnsEndpoints } from './aws-wiring/sns-endpoints';
import { sqsQueue } from './aws-wiring/sqs';
import { ssmLinkSigningSecret } from './aws-wiring/ssm';
import { stripeBilling } from './aws-wiring/stripe';

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
  images: s3Images,
  snsEndpoints: httpsSnsEndpoints,
  inboundMail: s3InboundMail,
  billing: stripeBilling,
  linkSigningSecret: ssmLinkSigningSecret,
} as const;

/** A function declaring every use, wired with every factory (tests, tools). */
export const everyUse: AwsFunction = {
  uses: Object.keys(portsOfUse) as PortUse[],
  wiring: everyPort,
  owner: 'every use',
};
