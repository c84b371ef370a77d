/** ImagePort over the images bucket, served by its CloudFront distribution (lib/constructs/image-hosting.ts). */
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { ImagePort } from '../../ports';
import { IMAGE_CACHE_CONTROL } from '../../uploads/images';

export interface S3ImagesConfig {
  readonly bucket: string;
  /** Where the bucket is served: `https://<distribution domain>`, with or without a trailing slash. */
  readonly baseUrl: string;
}

/**
 * Puts each image as an object of the bucket, with its content type (which CloudFront serves it
 * with) and a long cache lifetime, and answers its URL on the distribution: `<baseUrl>/<key>`.
 * The function may only put objects under `images/`; it cannot read, list or delete them.
 */
export class S3Images implements ImagePort {
  private readonly baseUrl: string;

  constructor(
    private readonly client: S3Client,
    private readonly config: S3ImagesConfig,
  ) {
    this.baseUrl = config.baseUrl.replace(/\/+$/, '');
  }

  async put(key: string, body: Uint8Array, contentType: string): Promise<{ url: string }> {
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.config.bucket,
        Key: key,
        Body: body,
        ContentType: contentType,
        CacheControl: IMAGE_CACHE_CONTROL,
      }),
    );
    return { url: `${this.baseUrl}/${key.split('/').map(encodeURIComponent).join('/')}` };
  }
}
