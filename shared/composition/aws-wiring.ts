/**
 * The AWS adapter factories, one per port (`AwsWiring` in shared/composition/aws.ts). An entry
 * point imports the ones its declared uses need, so a function's bundle holds only the adapters it
 * is wired with (esbuild drops the unused factories). Each but the table's loads its adapter and
 * SDK client with a dynamic `import()` when the port is first used, so a cold start evaluates none
 * of them.
 *
 * Each factory imports a module of ./aws-ports, never an SDK package itself. esbuild does not
 * tree-shake what a dynamic `import()` reaches (without code splitting it wraps that part of the
 * graph to run on first use, whole): a client reached that way comes with all its commands,
 * waiters and paginators, parsed at start and evaluated on first use, and so does every module of
 * ours it imports. So the port modules import nothing of the composition, and the table's port is
 * imported statically: every function with a store uses it on every request, so loading it later
 * saves nothing, and a static import lets esbuild keep only the commands the store sends.
 */
import type { SecretLoader } from '../config/env';
import type {
  BlobPort,
  DnsPort,
  DnsZonePort,
  EmailIdentityPort,
  MailerPort,
  QueuePort,
  SchedulerPort,
} from '../ports';
import type { Store } from '../store/store';
import type { PortFactory } from './aws';
import { dynamoStore as storeOverDynamo } from './aws-ports/dynamo';

export const dynamoStore: PortFactory<Store> = async (settings) => storeOverDynamo(settings);

export const sqsQueue: PortFactory<QueuePort> = async (settings) =>
  (await import('./aws-ports/sqs')).sqsQueue(settings);

export const eventBridgeScheduler: PortFactory<SchedulerPort> = async (settings) =>
  (await import('./aws-ports/scheduler')).eventBridgeScheduler(settings);

export const sesMailer: PortFactory<MailerPort> = async (settings) =>
  (await import('./aws-ports/ses-mailer')).sesMailer(settings);

export const sesEmailIdentities: PortFactory<EmailIdentityPort> = async () =>
  (await import('./aws-ports/ses-identities')).sesEmailIdentities();

export const route53Zones: PortFactory<DnsZonePort> = async () =>
  (await import('./aws-ports/route53')).route53Zones();

export const systemDns: PortFactory<DnsPort> = async () => {
  const { SystemDns } = await import('../adapters/aws/dns');
  return new SystemDns();
};

export const s3Blobs: PortFactory<BlobPort> = async (settings) =>
  (await import('./aws-ports/s3')).s3Blobs(settings);

export const ssmLinkSigningSecret = async (name: string): Promise<SecretLoader> =>
  (await import('./aws-ports/ssm')).ssmLinkSigningSecret(name);
