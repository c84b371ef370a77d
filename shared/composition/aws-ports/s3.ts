/** The blob port over S3, with its client (see aws-wiring/s3.ts, `s3Blobs`). */
import { S3Client } from '@aws-sdk/client-s3';
import { S3Blobs } from '../../adapters/aws/s3';
import type { BlobPort } from '../../ports';
import type { AwsSettings } from '../aws';

export function s3Blobs({ env }: AwsSettings): BlobPort {
  // awsDeps answers with unconfigured blobs when the bucket is missing.
  return new S3Blobs(new S3Client({}), { bucket: env.UPLOAD_BUCKET ?? '' });
}
