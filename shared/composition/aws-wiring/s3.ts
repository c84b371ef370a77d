/**
 * The blobs' adapter factory: S3, loaded on first use.
 * One factory per module (see `AwsWiring`, ../aws.ts): an entry point imports the factories it is wired
 * with, and no other factory's `import()` is in its bundle's graph.
 */
import type { BlobPort } from '../../ports';
import type { PortFactory } from '../aws';

export const s3Blobs: PortFactory<BlobPort> = async (settings) =>
  (await import('../aws-ports/s3')).s3Blobs(settings);
