import { PutObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { S3Images } from '../../../../shared/adapters/aws/s3-images';

const client = new S3Client({ region: 'eu-west-1' });
const s3 = mockClient(client);
const images = new S3Images(client, {
  bucket: 'sesame-images',
  baseUrl: 'https://d111111abcdef8.cloudfront.net',
});
const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const key = 'images/3e9d1c34-0000-4000-8000-000000000001/9f0b0000-0000-4000-8000-000000000002.png';

beforeEach(() => {
  s3.reset();
});

describe('S3Images', () => {
  it('puts the image with its content type and a year of immutable caching, and answers its CloudFront URL', async () => {
    s3.on(PutObjectCommand).resolves({});
    await expect(images.put(key, png, 'image/png')).resolves.toEqual({
      url: `https://d111111abcdef8.cloudfront.net/${key}`,
    });
    expect(s3.commandCalls(PutObjectCommand)[0]!.args[0].input).toStrictEqual({
      Bucket: 'sesame-images',
      Key: key,
      Body: png,
      ContentType: 'image/png',
      CacheControl: 'public, max-age=31536000, immutable',
    });
  });

  it('joins a base URL given with a trailing slash, and percent-encodes each key segment', async () => {
    s3.on(PutObjectCommand).resolves({});
    const slashed = new S3Images(client, { bucket: 'b', baseUrl: 'https://img.example.com/' });
    expect((await slashed.put('images/p 1/x#.png', png, 'image/png')).url).toBe(
      'https://img.example.com/images/p%201/x%23.png',
    );
  });

  it('rethrows what S3 refuses, answering no URL', async () => {
    const denied = new S3ServiceException({
      name: 'AccessDenied',
      $fault: 'client',
      message: 'Access Denied',
      $metadata: { httpStatusCode: 403 },
    });
    s3.on(PutObjectCommand).rejects(denied);
    await expect(images.put(key, png, 'image/png')).rejects.toBe(denied);
  });
});
