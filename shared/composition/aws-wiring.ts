/**
 * The AWS adapter factories, one per port (`AwsWiring` in shared/composition/aws.ts). An entry
 * point imports the ones its declared uses need; each loads its adapter and SDK client with a
 * dynamic `import()` when the port is first used, so a function's bundle holds only the adapters it
 * is wired with (esbuild drops the unused factories) and its cold start evaluates none of them.
 *
 * Each factory imports a module of ./aws-ports, never an SDK package itself: a package reached by
 * `import()` is bundled whole (every command of its client), while the static imports of those
 * modules let esbuild keep only the client and the commands the adapter sends.
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

export const dynamoStore: PortFactory<Store> = async (settings) =>
  (await import('./aws-ports/dynamo')).dynamoStore(settings);

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
