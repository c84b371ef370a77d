import { Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { manifest as defaultManifest, type Manifest, type QueueName } from '../shared/manifest';
import { DataTable } from './constructs/data-table';
import { EmailEvents } from './constructs/email-events';
import { ImageHosting } from './constructs/image-hosting';
import { InboundMail } from './constructs/inbound-mail';
import { LinkSigningSecret } from './constructs/link-signing';
import { OneOffScheduler } from './constructs/one-off-scheduler';
import { UploadBucket } from './constructs/upload-bucket';
import { WorkQueue } from './constructs/work-queue';

/** What the stateless stack needs from the stateful one. */
export interface StatefulResources {
  readonly table: DataTable;
  readonly bucket: UploadBucket;
  /** Uploaded images: their bucket and the CloudFront distribution serving them. */
  readonly images: ImageHosting;
  /** One per manifest queue, by queue name. */
  readonly queues: ReadonlyMap<string, WorkQueue>;
  /** Schedule group and role for the one-off schedules the runtime creates. */
  readonly oneOffScheduler: OneOffScheduler;
  /** Key of the signed links in emails, generated once and kept. */
  readonly linkSigning: LinkSigningSecret;
  /** SES configuration set and events topic feeding the `jobs` queue (absent without that queue). */
  readonly emailEvents?: EmailEvents;
  /** Received mail's receipt rule, bucket and topic (only with `inboundDomain`). */
  readonly inboundMail?: InboundMail;
}

/** The manifest queue SES events and inbound-mail notifications go to. */
export const SES_EVENTS_QUEUE = 'jobs' satisfies QueueName;

export interface StatefulStackProps extends StackProps {
  /**
   * The deploy manifest whose queues to create.
   * @default the manifest in `shared/manifest.ts`
   */
  readonly manifest?: Manifest;
  /**
   * Refuse `DeleteTable` even outside CloudFormation.
   * @default true
   */
  readonly deletionProtection?: boolean;
  /**
   * Receive mail for this domain through SES (see `InboundMail`).
   * @default no inbound mail
   */
  readonly inboundDomain?: string;
}

/**
 * Everything that holds data or in-flight work and must outlive a redeploy: the table, the upload
 * bucket, the uploaded images with the distribution whose domain is in their URLs, the work
 * queues, the group of pending one-off schedules and the key of the signed links in emails
 * already sent. Changed rarely; the
 * stateless stack can be destroyed and redeployed freely.
 */
export class StatefulStack extends Stack implements StatefulResources {
  readonly table: DataTable;
  readonly bucket: UploadBucket;
  readonly images: ImageHosting;
  readonly queues: ReadonlyMap<string, WorkQueue>;
  readonly oneOffScheduler: OneOffScheduler;
  readonly linkSigning: LinkSigningSecret;
  readonly emailEvents?: EmailEvents;
  readonly inboundMail?: InboundMail;

  constructor(scope: Construct, id: string, props: StatefulStackProps = {}) {
    super(scope, id, props);
    const manifest: Manifest = props.manifest ?? defaultManifest;
    this.table = new DataTable(this, 'Data', { deletionProtection: props.deletionProtection });
    this.bucket = new UploadBucket(this, 'Uploads');
    this.images = new ImageHosting(this, 'Images');
    this.queues = new Map(
      manifest.queues.map((def) => [
        def.name,
        new WorkQueue(this, `${pascalCase(def.name)}Queue`, { definition: def }),
      ]),
    );
    this.oneOffScheduler = new OneOffScheduler(this, 'OneOffSchedules', {
      queues: [...this.queues.values()],
    });
    // Direct uploads (manifest): the stored object starts the work on the named queue.
    for (const def of manifest.directUploads ?? []) {
      const queue = this.queues.get(def.queue);
      if (!queue)
        throw new Error(`Direct upload ${def.name} names queue ${def.queue}, which is not in the manifest`);
      this.bucket.notifyOnCreated(def.keyPrefix, queue.queue);
    }
    this.linkSigning = new LinkSigningSecret(this, 'LinkSigningSecret');
    // SES events and received mail arrive as jobs (lib/constructs/email-events.ts, inbound-mail.ts).
    const eventsQueue = this.queues.get(SES_EVENTS_QUEUE)?.queue;
    if (eventsQueue) this.emailEvents = new EmailEvents(this, 'EmailEvents', { queue: eventsQueue });
    if (props.inboundDomain) {
      if (!eventsQueue) throw new Error(`Inbound mail needs the ${SES_EVENTS_QUEUE} queue in the manifest`);
      this.inboundMail = new InboundMail(this, 'InboundMail', {
        domain: props.inboundDomain,
        queue: eventsQueue,
      });
    }
  }
}

/** `campaign-send` -> `CampaignSend`, for construct ids. */
export function pascalCase(name: string): string {
  return name
    .split(/[^A-Za-z0-9]+/)
    .filter((part) => part.length > 0)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');
}
