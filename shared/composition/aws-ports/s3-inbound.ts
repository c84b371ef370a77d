/** The inbound mail port over S3, with its client (see aws-wiring/s3-inbound.ts, `s3InboundMail`). */
import { S3Client } from '@aws-sdk/client-s3';
import { S3Blobs } from '../../adapters/aws/s3';
import type { InboundMailPort } from '../../ports';
import type { AwsSettings } from '../aws';

/**
 * Reads the inbound bucket as the blob port reads the upload bucket (`S3Blobs.get`: a missing key,
 * an expired message, is undefined); only `get` is exposed (`awsDeps` builds the port with that one
 * method), and the function's role may only read (lib/constructs/inbound-mail.ts, `bindReader`).
 */
export function s3InboundMail({ inboundBucket }: AwsSettings): InboundMailPort {
  // awsDeps answers with unconfigured inbound mail when the bucket is missing.
  return new S3Blobs(new S3Client({}), { bucket: inboundBucket ?? '' });
}
