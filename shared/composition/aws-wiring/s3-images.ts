/**
 * The images' adapter factory: S3 (served by CloudFront), loaded on first use.
 * One factory per module (see `AwsWiring`, ../aws.ts): an entry point imports the factories it is wired
 * with, and no other factory's `import()` is in its bundle's graph.
 */
import type { ImagePort } from '../../ports';
import type { PortFactory } from '../aws';

export const s3Images: PortFactory<ImagePort> = async (settings) =>
  (await import('../aws-ports/s3-images')).s3Images(settings);
