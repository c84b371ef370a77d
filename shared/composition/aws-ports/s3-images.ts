/** The image port over S3, with its client (see aws-wiring/s3-images.ts, `s3Images`). */
import { S3Client } from '@aws-sdk/client-s3';
import { S3Images } from '../../adapters/aws/s3-images';
import type { ImagePort } from '../../ports';
import type { AwsSettings } from '../aws';

export function s3Images({ env }: AwsSettings): ImagePort {
  // awsDeps answers with unconfigured images when the bucket or its public URL is missing.
  return new S3Images(new S3Client({}), {
    bucket: env.IMAGE_BUCKET ?? '',
    baseUrl: env.IMAGE_BASE_URL ?? '',
  });
}
