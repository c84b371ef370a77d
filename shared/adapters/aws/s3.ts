/** BlobPort over one S3 bucket. */
import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { BlobPort } from '../../ports';
import { awsErrorName } from './aws-errors';

export interface S3BlobsConfig {
  readonly bucket: string;
}

/**
 * Objects by key in one bucket. `get` answers undefined for a missing key; S3 only says
 * `NoSuchKey` when the caller may also list the bucket (`s3:ListBucket`), otherwise it answers
 * `AccessDenied`, which is rethrown as the permission error it may well be.
 */
export class S3Blobs implements BlobPort {
  constructor(
    private readonly client: S3Client,
    private readonly config: S3BlobsConfig,
  ) {}

  async put(key: string, body: Uint8Array, contentType: string): Promise<void> {
    await this.client.send(
      new PutObjectCommand({ Bucket: this.config.bucket, Key: key, Body: body, ContentType: contentType }),
    );
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    try {
      const output = await this.client.send(new GetObjectCommand({ Bucket: this.config.bucket, Key: key }));
      if (!output.Body) throw new Error(`S3 returned no body for "${key}"`);
      return await output.Body.transformToByteArray();
    } catch (error) {
      if (awsErrorName(error) === 'NoSuchKey') return undefined;
      throw error;
    }
  }

  /** Deleting a missing key succeeds (S3 semantics), as the port expects. */
  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.config.bucket, Key: key }));
  }
}
