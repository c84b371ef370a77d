/**
 * `POST /contacts/import` without a Lambda in the request path (docs/imports.md, "Large files").
 *
 * API Gateway base64-encodes a multipart body for Lambda, and Lambda refuses invocations over
 * 6 MB, so a 5 MB CSV cannot pass through a route Lambda. Instead a REST API stores the body in
 * the upload bucket itself (an S3 integration), after a Lambda authorizer that sees only the
 * headers has checked the key and created the job; the bucket's "object created" notification
 * starts the import on the jobs queue. The local gateway emulates the same steps with the same
 * authorizer and the same response templates (below), so both answer alike.
 */
import { SESSION_COOKIE } from '../accounts/cookies';
import { AppError } from '../errors';
import { ApiKeyAuthenticator, type Principal, ProjectDisabledError } from '../http/auth';
import { authenticateProjectSession } from '../http/auth/project-session';
import { cookieValue } from '../http/auth/session';
import { CSRF_MESSAGE, csrfHeaderMissing } from '../http/csrf';
import { consumeRateLimit } from '../http/rate-limit';
import { scheduleJob } from '../jobs/registry';
import type { Deps } from '../ports';
import type { StoreDeps } from '../store/store';
import { uploadDeadlineJobMessage, uploadKey } from './messages';
import { isMultipart, MAX_IMPORT_FILE_BYTES } from './multipart';
import { createImportJob, failQueuedImportJob, getImportJob } from './repository';

/** Room for the multipart envelope around the file (boundaries, part headers, small fields). */
export const MULTIPART_ALLOWANCE_BYTES = 64 * 1024;
/** The largest request body the authorizer lets through to the bucket. */
export const MAX_UPLOAD_BODY_BYTES = MAX_IMPORT_FILE_BYTES + MULTIPART_ALLOWANCE_BYTES;

/**
 * The responses API Gateway gives for the upload route, as mapping templates: `$context.*`
 * placeholders are filled by API Gateway on AWS and by `renderTemplate` locally. Values the
 * authorizer puts in its context are plain text without quotes or backslashes, since gateway
 * responses substitute them unescaped.
 */
export const uploadResponses = {
  /** The body is stored: the job is queued. */
  accepted: { statusCode: 202, template: '{"jobId":"$context.authorizer.jobId","status":"queued"}' },
  /** No key, an unknown key or a public key (the authorizer throws `Unauthorized`). */
  unauthorized: {
    statusCode: 401,
    template:
      '{"success":false,"error":{"code":"INVALID_API_KEY","message":"Missing or invalid API key","statusCode":401,"requestId":"$context.requestId","suggestion":"Send Authorization: Bearer <key> with a secret key (sk_)"}}',
  },
  /**
   * Refused by the authorizer with a reason (project disabled, rate limit, not multipart, body
   * too large). API Gateway gives every authorizer denial one status, so the reason is in `code`.
   */
  denied: {
    statusCode: 403,
    template:
      '{"success":false,"error":{"code":"$context.authorizer.code","message":"$context.authorizer.message","statusCode":403,"requestId":"$context.requestId"},"timestamp":"$context.authorizer.at"}',
  },
  /** Over API Gateway's own 10 MB request limit. */
  tooLarge: {
    statusCode: 413,
    template:
      '{"success":false,"error":{"code":"FILE_TOO_LARGE","message":"The request is larger than 10 MB; CSV files are limited to 5 MB","statusCode":413,"requestId":"$context.requestId"}}',
  },
  /** The bucket refused or failed the write. */
  storeFailed: {
    statusCode: 500,
    template:
      '{"success":false,"error":{"code":"INTERNAL_SERVER_ERROR","message":"The upload could not be stored","statusCode":500,"requestId":"$context.requestId"}}',
  },
} as const;

/** Fills `$context.requestId` and `$context.authorizer.<name>` as API Gateway does. */
export function renderTemplate(
  template: string,
  context: { requestId: string; authorizer?: Readonly<Record<string, string>> },
): string {
  return template.replace(
    /\$context\.(authorizer\.)?([A-Za-z]+)/g,
    (_m, auth: string | undefined, name: string) =>
      auth ? (context.authorizer?.[name] ?? '') : name === 'requestId' ? context.requestId : '',
  );
}

/** A REST API Lambda authorizer's input (REQUEST type); headers as the client sent them. */
export interface UploadAuthorizerEvent {
  readonly type?: string;
  readonly methodArn: string;
  readonly headers?: Readonly<Record<string, string | undefined>> | null;
  readonly requestContext?: { readonly identity?: { readonly sourceIp?: string } };
}

export interface UploadAuthorizerResult {
  readonly principalId: string;
  readonly policyDocument: {
    readonly Version: '2012-10-17';
    readonly Statement: readonly {
      Action: 'execute-api:Invoke';
      Effect: 'Allow' | 'Deny';
      Resource: string;
    }[];
  };
  /** Strings only: API Gateway maps them into the integration and the responses. */
  readonly context: Readonly<Record<string, string>>;
}

/** API Gateway turns this exact message into its 401 (UNAUTHORIZED) response. */
export const UNAUTHORIZED = 'Unauthorized';

/**
 * How long after the authorizer's answer the body must be stored. API Gateway gives the S3
 * integration 29 seconds at most, so a quarter of an hour leaves a wide margin (EventBridge
 * Scheduler fires within a minute or two of the time).
 */
export const UPLOAD_DEADLINE_SECONDS = 15 * 60;

/** The one-off schedule of a job's deadline check (a valid Scheduler name as it is). */
export const uploadDeadlineName = (jobId: string) => `import-upload-${jobId}`;

export const UPLOAD_NOT_RECEIVED = {
  code: 'UPLOAD_NOT_RECEIVED',
  message: `The file never arrived: the upload was accepted but its body was not stored within ${UPLOAD_DEADLINE_SECONDS / 60} minutes; upload the file again`,
} as const;

type AuthorizerDeps = Pick<Deps, 'store' | 'clock' | 'ids' | 'config' | 'scheduler'>;

/**
 * The upload authorizer's key check: the HTTP routes' API-key authenticator for a secret key,
 * without its per-instance caches and failure limit. Uncached, because each upload creates a job
 * for the project the key names now (a disabled project, a revoked key take effect at once).
 */
function uploadAuthenticator(deps: AuthorizerDeps) {
  const apiKeys = new ApiKeyAuthenticator(deps, { cache: false, limitFailures: false });
  const secretKeys = apiKeys.forKind('secret');
  // As on every project route (shared/http/auth): a request with an Authorization header is judged
  // by its key; one without, that carries a session cookie, by the session and X-Project-Id.
  return {
    authenticate: (input: { headers: Record<string, string>; cookies: string[]; sourceIp: string }) =>
      input.headers.authorization === undefined && cookieValue(input.cookies, SESSION_COOKIE) !== undefined
        ? authenticateProjectSession(deps, apiKeys, { ...input, rawBody: undefined })
        : secretKeys.authenticate({ ...input, rawBody: undefined }),
  };
}

/**
 * Decides an import upload from its headers: the secret key (the API-key authenticator), the
 * project, the per-project rate limit, the content type and the declared size. An accepted upload
 * gets its job (status `queued`) before the body is stored, so the job id answered can be polled
 * at once, and a deadline check (a one-off schedule on the jobs queue, `checkUploadDeadline`) that
 * fails the job if the body has not been stored by then.
 */
export async function authorizeImportUpload(
  deps: AuthorizerDeps,
  event: UploadAuthorizerEvent,
): Promise<UploadAuthorizerResult> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(event.headers ?? {}))
    if (value !== undefined) headers[name.toLowerCase()] = value;
  const deny = (projectId: string, code: string, message: string): UploadAuthorizerResult => ({
    principalId: projectId,
    policyDocument: policy('Deny', event.methodArn),
    context: { code, message, at: deps.clock.now().toISOString() },
  });
  const cookies = (headers.cookie ?? '').split(';').filter((c) => c.trim() !== '');
  // As on every other route (shared/http/csrf.ts): signed in by the cookie, the upload (a POST,
  // the only method of its route) needs the header.
  if (csrfHeaderMissing({ method: 'POST', headers, cookies, session: false }))
    return deny('unknown', 'CSRF_HEADER_MISSING', CSRF_MESSAGE);
  let principal: Principal;
  try {
    principal = await uploadAuthenticator(deps).authenticate({
      headers,
      // REST API events carry the request's Cookie header as it came: `a=1; b=2`.
      cookies,
      sourceIp: event.requestContext?.identity?.sourceIp ?? 'unknown',
    });
  } catch (error) {
    // API Gateway answers its 401 to `Unauthorized`, and every denial with one status (403): a
    // session for a project it is no member of (404 on the other routes) or without X-Project-Id
    // (400) is denied with that code, the same for a project that does not exist.
    if (error instanceof ProjectDisabledError) return deny(error.projectId, error.code, error.message);
    if (error instanceof AppError && error.statusCode === 401) throw new Error(UNAUTHORIZED);
    if (error instanceof AppError && (error.statusCode === 404 || error.statusCode === 400))
      return deny('unknown', error.code, error.message);
    throw error;
  }
  const { projectId } = principal;
  const at = deps.clock.now().toISOString();
  try {
    await consumeRateLimit(deps, projectId);
  } catch (error) {
    if (error instanceof AppError && error.statusCode === 429)
      return deny(projectId, error.code, error.message);
    throw error;
  }
  const contentType = headers['content-type'];
  if (!isMultipart(contentType)) {
    return deny(
      projectId,
      'INVALID_UPLOAD',
      'Send the CSV as multipart/form-data with the file in a part named file',
    );
  }
  const length = Number(headers['content-length'] ?? Number.NaN);
  if (Number.isFinite(length) && length > MAX_UPLOAD_BODY_BYTES) {
    return deny(
      projectId,
      'FILE_TOO_LARGE',
      `The upload is ${length} bytes; CSV files are limited to ${MAX_IMPORT_FILE_BYTES} bytes (5 MB)`,
    );
  }
  const jobId = deps.ids.uuid();
  // The deadline check first: if it cannot be arranged the authorizer fails (API Gateway answers
  // 500) before any job exists, so no job can be left `queued` with nothing to end it. A check
  // whose job was never created finds nothing and does nothing.
  await scheduleJob(
    deps,
    uploadDeadlineJobMessage,
    { projectId, jobId },
    { name: uploadDeadlineName(jobId), at: new Date(Date.parse(at) + UPLOAD_DEADLINE_SECONDS * 1000) },
  );
  await createImportJob(deps, {
    projectId,
    jobId,
    contentType: contentType!,
    uploadKey: uploadKey(projectId, jobId),
    createdAt: at,
  });
  return {
    principalId: projectId,
    policyDocument: policy('Allow', event.methodArn),
    context: { projectId, jobId },
  };
}

/**
 * The deadline check of one upload: a job still `queued` whose body is not stored is failed with
 * `UPLOAD_NOT_RECEIVED`. A job that started (or ended) meanwhile is left alone, and so is a queued
 * job whose body is stored (its "object created" message will start it). The update is
 * conditional on `queued`, so it cannot overwrite a start that races it; and an upload stored
 * after the job failed does not revive it (the import job leaves failed jobs as they are).
 */
export async function checkUploadDeadline(
  deps: StoreDeps & Pick<Deps, 'clock' | 'blobs'>,
  projectId: string,
  jobId: string,
): Promise<void> {
  const job = await getImportJob(deps, projectId, jobId);
  if (job?.status !== 'queued') return;
  if (await deps.blobs.get(job.uploadKey)) return;
  const failed = await failQueuedImportJob(deps, job, UPLOAD_NOT_RECEIVED, deps.clock.now().toISOString());
  if (failed) {
    console.warn(
      JSON.stringify({
        level: 'warn',
        message: 'Import upload never arrived; job failed',
        projectId,
        jobId,
        code: UPLOAD_NOT_RECEIVED.code,
      }),
    );
  }
}

function policy(effect: 'Allow' | 'Deny', resource: string): UploadAuthorizerResult['policyDocument'] {
  return {
    Version: '2012-10-17',
    Statement: [{ Action: 'execute-api:Invoke', Effect: effect, Resource: resource }],
  };
}
