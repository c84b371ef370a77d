/**
 * Typed outcomes of a failed send. Kept free of SDK imports so that domain code (and the local
 * mail sink) can throw and catch them without loading an AWS client.
 */

/** Why a send may succeed if tried again later. */
export type RetryableSendReason = 'RATE_EXCEEDED' | 'DAILY_QUOTA_EXCEEDED' | 'SERVICE_ERROR';

/** The provider throttled the send or failed on its side: retry with backoff. */
export class RetryableSendError extends Error {
  readonly code = 'SEND_RETRYABLE';

  constructor(
    readonly reason: RetryableSendReason,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'RetryableSendError';
  }
}

/** Why a send will fail the same way if tried again. */
export type PermanentSendReason =
  | 'MESSAGE_REJECTED'
  | 'MAIL_FROM_DOMAIN_NOT_VERIFIED'
  | 'ACCOUNT_SUSPENDED'
  | 'SENDING_PAUSED'
  | 'BAD_REQUEST'
  | 'NOT_FOUND';

/** The provider refused the message: record it as failed with `reason`, do not retry. */
export class PermanentSendError extends Error {
  readonly code = 'SEND_REJECTED';

  constructor(
    readonly reason: PermanentSendReason,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'PermanentSendError';
  }
}
