import {
  DeleteObjectCommand,
  GetObjectCommand,
  type GetObjectCommandOutput,
  NoSuchKey,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { S3Blobs } from '../../../../shared/adapters/aws/s3';

const client = new S3Client({ region: 'eu-west-1' });
const s3 = mockClient(client);
const blobs = new S3Blobs(client, { bucket: 'sesame-uploads' });
const bytes = new TextEncoder().encode('a,b\n1,2\n');

/** The part of the SDK's streaming body that the adapter reads. */
const body = (data: Uint8Array) =>
  ({ transformToByteArray: async () => data }) as unknown as GetObjectCommandOutput['Body'];

beforeEach(() => {
  s3.reset();
});

describe('S3Blobs', () => {
  it('puts an object with its content type', async () => {
    s3.on(PutObjectCommand).resolves({});
    await blobs.put('p1/imports/1.csv', bytes, 'text/csv');
    expect(s3.commandCalls(PutObjectCommand)[0]!.args[0].input).toStrictEqual({
      Bucket: 'sesame-uploads',
      Key: 'p1/imports/1.csv',
      Body: bytes,
      ContentType: 'text/csv',
    });
  });

  it('gets the bytes of an object', async () => {
    s3.on(GetObjectCommand, { Bucket: 'sesame-uploads', Key: 'k' }).resolves({ Body: body(bytes) });
    await expect(blobs.get('k')).resolves.toEqual(bytes);
  });

  it('answers undefined for a missing key', async () => {
    s3.on(GetObjectCommand).rejects(
      new NoSuchKey({ message: 'The specified key does not exist.', $metadata: {} }),
    );
    await expect(blobs.get('missing')).resolves.toBeUndefined();
  });

  it('rethrows AccessDenied and other errors', async () => {
    const denied = new S3ServiceException({
      name: 'AccessDenied',
      $fault: 'client',
      message: 'Access Denied',
      $metadata: { httpStatusCode: 403 },
    });
    s3.on(GetObjectCommand).rejects(denied);
    await expect(blobs.get('k')).rejects.toBe(denied);
  });

  it('deletes an object', async () => {
    s3.on(DeleteObjectCommand).resolves({});
    await blobs.delete('k');
    expect(s3.commandCalls(DeleteObjectCommand)[0]!.args[0].input).toStrictEqual({
      Bucket: 'sesame-uploads',
      Key: 'k',
    });
  });
});
