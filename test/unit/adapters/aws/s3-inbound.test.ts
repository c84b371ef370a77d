/**
 * Inbound mail on AWS: the port the jobs worker reads received messages through, built from
 * INBOUND_BUCKET by `awsDeps` with the worker's wiring: a GetObject of the named key in that
 * bucket, a missing (expired) message as undefined, any other failure thrown, and nothing but
 * reads. Without the variable (a deployment that does not receive mail) it fails when called.
 */
import {
  GetObjectCommand,
  type GetObjectCommandOutput,
  NoSuchKey,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { awsDeps } from '../../../../shared/composition/aws';
import { s3InboundMail } from '../../../../shared/composition/aws-wiring/s3-inbound';

const s3 = mockClient(S3Client);
const env = { TABLE_NAME: 'sesame-table', INBOUND_BUCKET: 'sesame-prod-stateful-inboundmailbucket-1a2b3c' };
const reader = { uses: ['inbound-mail'] as const, wiring: { inboundMail: s3InboundMail } };
const raw = new TextEncoder().encode('From: ann@example.org\r\nSubject: Hi\r\n\r\nHello\r\n');
const body = (data: Uint8Array) =>
  ({ transformToByteArray: async () => data }) as unknown as GetObjectCommandOutput['Body'];

beforeEach(() => {
  s3.reset();
});

afterAll(() => {
  s3.restore();
});

describe('the inbound mail port over S3', () => {
  it('reads the named message from INBOUND_BUCKET', async () => {
    s3.on(GetObjectCommand).resolves({ Body: body(raw) });
    const { inboundMail } = awsDeps(env, reader);
    await expect(inboundMail.get('inbound/o3vrnil0e2ic28trm7dfhrc2v0clambda4nbp0g81')).resolves.toEqual(raw);
    expect(s3.commandCalls(GetObjectCommand).map((c) => c.args[0].input)).toEqual([
      { Bucket: env.INBOUND_BUCKET, Key: 'inbound/o3vrnil0e2ic28trm7dfhrc2v0clambda4nbp0g81' },
    ]);
  });

  it('answers undefined for a message that is gone (NoSuchKey: the role may list the bucket)', async () => {
    s3.on(GetObjectCommand).rejects(
      new NoSuchKey({ message: 'The specified key does not exist.', $metadata: {} }),
    );
    await expect(awsDeps(env, reader).inboundMail.get('inbound/expired')).resolves.toBeUndefined();
  });

  it('throws a denied read and other failures, so the job is retried', async () => {
    const denied = new S3ServiceException({
      name: 'AccessDenied',
      $fault: 'client',
      message: 'Access Denied',
      $metadata: { httpStatusCode: 403 },
    });
    s3.on(GetObjectCommand).rejects(denied);
    await expect(awsDeps(env, reader).inboundMail.get('inbound/m')).rejects.toBe(denied);
  });

  it('can only read: the port has no method to write or delete', () => {
    expect(Object.keys(awsDeps(env, reader).inboundMail)).toEqual(['get']);
  });

  it('fails clearly without INBOUND_BUCKET (no inbound mail deployed), and refuses a malformed one', async () => {
    const { INBOUND_BUCKET: _, ...withoutBucket } = env;
    await expect(awsDeps(withoutBucket, reader).inboundMail.get('inbound/m')).rejects.toThrow(
      'Inbound mail is not configured for this function: set INBOUND_BUCKET',
    );
    expect(s3.calls()).toHaveLength(0);
    expect(() => awsDeps({ ...env, INBOUND_BUCKET: 'Not A Bucket' }, reader)).toThrow(
      /INBOUND_BUCKET: expected an S3 bucket name/,
    );
  });

  it('is refused to a function that does not declare inbound-mail', async () => {
    const { inboundMail } = awsDeps(env, { uses: [], wiring: {} });
    expect(() => inboundMail.get('inbound/m')).toThrow(/declares no use of it/);
  });
});
