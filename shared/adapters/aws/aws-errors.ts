/** Small helpers for recognising AWS SDK errors without depending on one client's classes. */

/**
 * The error's `name` (for SDK service errors, the AWS error code such as `NoSuchKey`). Matching by
 * name rather than `instanceof` also works when a bundle holds two copies of a client.
 */
export function awsErrorName(error: unknown): string | undefined {
  return error instanceof Error ? error.name : undefined;
}

/** The HTTP status the service answered with, when the error carries one. */
export function awsHttpStatus(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null || !('$metadata' in error)) return undefined;
  const metadata = (error as { $metadata?: { httpStatusCode?: unknown } }).$metadata;
  return typeof metadata?.httpStatusCode === 'number' ? metadata.httpStatusCode : undefined;
}

/** The service's own message, for error reasons; falls back to the error name. */
export function awsErrorMessage(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}
