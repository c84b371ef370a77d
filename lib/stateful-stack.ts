import { Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { manifest as defaultManifest, type Manifest } from '../shared/manifest';
import { DataTable } from './constructs/data-table';
import { LinkSigningSecret } from './constructs/link-signing';
import { OneOffScheduler } from './constructs/one-off-scheduler';
import { UploadBucket } from './constructs/upload-bucket';
import { WorkQueue } from './constructs/work-queue';

/** What the stateless stack needs from the stateful one. */
export interface StatefulResources {
  readonly table: DataTable;
  readonly bucket: UploadBucket;
  /** One per manifest queue, by queue name. */
  readonly queues: ReadonlyMap<string, WorkQueue>;
  /** Schedule group and role for the one-off schedules the runtime creates. */
  readonly oneOffScheduler: OneOffScheduler;
  /** Key of the signed links in emails, generated once and kept. */
  readonly linkSigning: LinkSigningSecret;
}

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
}

/**
 * Everything that holds data or in-flight work and must outlive a redeploy: the table, the upload
 * bucket, the work queues, the group of pending one-off schedules and the key of the signed
 * links in emails already sent. Changed rarely; the
 * stateless stack can be destroyed and redeployed freely.
 */
export class StatefulStack extends Stack implements StatefulResources {
  readonly table: DataTable;
  readonly bucket: UploadBucket;
  readonly queues: ReadonlyMap<string, WorkQueue>;
  readonly oneOffScheduler: OneOffScheduler;
  readonly linkSigning: LinkSigningSecret;

  constructor(scope: Construct, id: string, props: StatefulStackProps = {}) {
    super(scope, id, props);
    const manifest: Manifest = props.manifest ?? defaultManifest;
    this.table = new DataTable(this, 'Data', { deletionProtection: props.deletionProtection });
    this.bucket = new UploadBucket(this, 'Uploads');
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
