/**
 * Typed errors with stable codes. Domain code throws these; `shared/http/errors.ts` turns them
 * into responses in exactly one place. Anything else becomes a 500 that reveals nothing.
 */

export interface FieldIssue {
  /** Dot path such as `attachments.0.filename`; empty for the whole body. */
  readonly field: string;
  readonly message: string;
  readonly code: string;
  readonly received?: unknown;
}

export class AppError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly extra: {
      readonly errors?: readonly FieldIssue[];
      readonly details?: Readonly<Record<string, unknown>>;
      readonly suggestion?: string;
      /** Response headers the error carries (for example Retry-After). */
      readonly headers?: Readonly<Record<string, string>>;
      /** Answer `{error: message}` without the envelope, as some create endpoints answer a missing field. */
      readonly flat?: boolean;
    } = {},
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export const badRequest = (message: string, details?: Record<string, unknown>) =>
  new AppError(400, 'BAD_REQUEST', message, { details });

/** The plain `{error: string}` 400 of contact, template and segment creation. */
export const flatBadRequest = (message: string) => new AppError(400, 'BAD_REQUEST', message, { flat: true });

export const notFound = (what: string) => new AppError(404, 'NOT_FOUND', `${what} not found`);

export const conflict = (code: string, message: string, details?: Record<string, unknown>) =>
  new AppError(409, code, message, { details });

export const validationError = (errors: readonly FieldIssue[], message = 'Validation failed') =>
  new AppError(422, 'VALIDATION_ERROR', message, { errors });

export const invalidApiKey = (message = 'Missing or invalid API key') =>
  new AppError(401, 'INVALID_API_KEY', message, {
    suggestion:
      'Send Authorization: Bearer <key> with a secret key (sk_), or a public key (pk_) for /v1/track',
  });

export const forbidden = (code: string, message: string) => new AppError(403, code, message);
