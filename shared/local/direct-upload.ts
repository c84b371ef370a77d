/**
 * The local stand-in for a manifest direct upload (`POST /contacts/import`): what the REST API
 * with its Lambda authorizer and S3 integration does on AWS (lib/constructs/direct-upload-api.ts),
 * with the same authorizer module and the same response templates:
 *
 * 1. no `Authorization` header: 401 (API Gateway answers without calling the authorizer);
 * 2. the authorizer sees the headers only: throwing `Unauthorized` is a 401, a Deny policy a 403;
 * 3. on Allow the body is stored under `<keyPrefix><projectId>/<jobId>` and an S3 "object
 *    created" event goes to the manifest queue, as the bucket notification does on AWS;
 * 4. the answer is the integration response template (202 `{jobId, status: "queued"}`).
 *
 * The body never goes through a route handler, so Lambda's 6 MB payload limit does not apply
 * here either; API Gateway's 10 MB request limit does.
 */
import type { Context } from 'aws-lambda';
import type { LocalLogger } from '../adapters/local/log';
import type { LocalQueue } from '../adapters/local/queue';
import { renderTemplate, uploadResponses } from '../imports/upload';
import type { DirectUploadDef, Manifest } from '../manifest';
import type { BlobPort, Clock, QueueMessage } from '../ports';
import { type HttpReply, type RawRequest, toAuthorizerEvent } from './apigw-event';
import { lambdaContext } from './lambda';

export type AuthorizerHandler = (event: unknown, context: Context) => Promise<unknown>;

/** A direct-upload route as the local gateway serves it. */
export interface LocalDirectUpload {
  readonly method: string;
  readonly path: string;
  /** `body` is undefined when the request was over the gateway's size limit. */
  handle(
    request: Omit<RawRequest, 'body'> & { body: Buffer | undefined },
    requestId: string,
  ): Promise<HttpReply>;
}

interface AuthorizerOutput {
  readonly policyDocument?: { readonly Statement?: readonly { readonly Effect?: string }[] };
  readonly context?: Record<string, unknown>;
}

/** What a local direct upload uses in place of the bucket and its notification. */
export interface DirectUploadPorts {
  readonly blobs: BlobPort;
  readonly queue: LocalQueue;
  readonly bucket: string;
  readonly logger: LocalLogger;
  /** Time of the S3 events. @default the system time */
  readonly clock?: Clock;
  /**
   * Called with the object key just before the body is stored; throwing makes the store fail as
   * a refused S3 write does (500, nothing stored, no event). Tests use it.
   */
  readonly beforeStore?: (key: string) => void | Promise<void>;
}

export function localDirectUploads(
  manifest: Pick<Manifest, 'directUploads'>,
  authorizers: Readonly<Record<string, AuthorizerHandler>>,
  ports: DirectUploadPorts,
): LocalDirectUpload[] {
  return (manifest.directUploads ?? []).flatMap((def) => {
    const authorizer = authorizers[def.name];
    return authorizer ? [directUpload(def, authorizer, ports)] : [];
  });
}

function directUpload(
  def: DirectUploadDef,
  authorizer: AuthorizerHandler,
  ports: DirectUploadPorts,
): LocalDirectUpload {
  const reply = (
    response: { statusCode: number; template: string },
    requestId: string,
    authorizerContext?: Record<string, string>,
  ): HttpReply => ({
    statusCode: response.statusCode,
    headers: { 'content-type': 'application/json', 'x-amzn-requestid': requestId },
    cookies: [],
    body: Buffer.from(renderTemplate(response.template, { requestId, authorizer: authorizerContext })),
  });
  return {
    method: def.method,
    path: def.path,
    async handle(request, requestId) {
      if (!request.body) return reply(uploadResponses.tooLarge, requestId);
      const authorizerEvent = toAuthorizerEvent(def, request, requestId);
      const headers = authorizerEvent.headers;
      // No identity source (a key or a session cookie will do): the authorizer always runs.
      let output: AuthorizerOutput;
      try {
        output = (await authorizer(
          authorizerEvent,
          lambdaContext({ name: `${def.name}-authorizer`, memoryMb: 512, timeoutMs: 29_000 }),
        )) as AuthorizerOutput;
      } catch (error) {
        if ((error as Error)?.message === 'Unauthorized')
          return reply(uploadResponses.unauthorized, requestId);
        ports.logger.error(`[gateway] authorizer of ${def.method} ${def.path} failed`, error);
        return {
          statusCode: 500,
          headers: { 'content-type': 'application/json' },
          cookies: [],
          body: Buffer.from('{"message":null}'),
        };
      }
      const context = Object.fromEntries(
        Object.entries(output.context ?? {}).map(([k, v]) => [k, String(v)]),
      );
      const allowed = output.policyDocument?.Statement?.every((s) => s.Effect === 'Allow') ?? false;
      if (!allowed) return reply(uploadResponses.denied, requestId, context);
      const key = `${def.keyPrefix}${context.projectId}/${context.jobId}`;
      try {
        await ports.beforeStore?.(key);
        await ports.blobs.put(key, request.body, headers['content-type'] ?? 'application/octet-stream');
      } catch (error) {
        ports.logger.error(`[gateway] storing ${key} failed`, error);
        return reply(uploadResponses.storeFailed, requestId, context);
      }
      // What the bucket's notification puts on the queue (S3 event message, no job `type`).
      const event = {
        Records: [
          {
            eventVersion: '2.1',
            eventSource: 'aws:s3',
            awsRegion: 'us-east-1',
            eventTime: (ports.clock?.now() ?? new Date()).toISOString(),
            eventName: 'ObjectCreated:Put',
            s3: {
              s3SchemaVersion: '1.0',
              bucket: { name: ports.bucket, arn: `arn:aws:s3:::${ports.bucket}` },
              object: { key: encodeURIComponent(key).replace(/%2F/g, '/'), size: request.body.length },
            },
          },
        ],
      };
      await ports.queue.send(def.queue, event as unknown as QueueMessage, { typeAttribute: false });
      return reply(uploadResponses.accepted, requestId, context);
    },
  };
}
