/** MailerPort over Amazon SES v2 (raw MIME). */
import {
  GetAccountCommand,
  type MessageTag,
  type SESv2Client,
  SendEmailCommand,
} from '@aws-sdk/client-sesv2';
import type { MailerPort, RawEmail } from '../../ports';
import { awsErrorMessage, awsErrorName, awsHttpStatus } from './aws-errors';
import { PermanentSendError, type PermanentSendReason, RetryableSendError } from './send-errors';

export {
  PermanentSendError,
  type PermanentSendReason,
  RetryableSendError,
  type RetryableSendReason,
} from './send-errors';

export interface SesMailerConfig {
  /** Configuration set whose event destination feeds the activity pipeline. */
  readonly configurationSetName?: string;
  /** How long a read of the account's send quota is reused. @default 10 minutes */
  readonly quotaTtlMs?: number;
  /** @default Date.now */
  readonly now?: () => number;
  /** Told about a failed quota read. @default console.warn */
  readonly onQuotaError?: (error: unknown) => void;
}

/** A quota read: its value, and when it was read. */
interface QuotaRead {
  readonly rate: number | undefined;
  readonly at: number;
}

/**
 * Sends the caller's MIME as is. Failures come back as `RetryableSendError` (throttling, SES
 * faults) or `PermanentSendError` (rejections, account state); anything else, such as a network
 * or credentials error, is rethrown unchanged.
 */
export class SesMailer implements MailerPort {
  private quota: Promise<QuotaRead> | undefined;

  constructor(
    private readonly client: SESv2Client,
    private readonly config: SesMailerConfig = {},
  ) {}

  /**
   * The account's SendQuota.MaxSendRate in this region (GetAccount), read once and reused for
   * `quotaTtlMs`; concurrent callers share one read. A failed read (a missing `ses:GetAccount`
   * right, SES unavailable) is logged and answers undefined, so the caller falls back to its
   * default, and is retried on the next call.
   */
  async maxSendRate(): Promise<number | undefined> {
    const now = this.config.now ?? Date.now;
    const ttl = this.config.quotaTtlMs ?? 10 * 60_000;
    const cached = this.quota && (await this.quota);
    if (cached && now() - cached.at < ttl) return cached.rate;
    this.quota = this.readQuota(now());
    const read = await this.quota;
    if (read.rate === undefined) this.quota = undefined;
    return read.rate;
  }

  private async readQuota(at: number): Promise<QuotaRead> {
    try {
      const out = await this.client.send(new GetAccountCommand({}));
      const rate = out.SendQuota?.MaxSendRate;
      return { rate: rate !== undefined && rate > 0 ? rate : undefined, at };
    } catch (error) {
      (
        this.config.onQuotaError ??
        ((e: unknown) =>
          console.warn(`Could not read the SES send quota (${awsErrorMessage(e)}); using the default rate`))
      )(error);
      return { rate: undefined, at };
    }
  }

  async sendRaw(email: RawEmail): Promise<{ messageId: string }> {
    const tags = sesTags(email.tags ?? {});
    let output: { MessageId?: string | undefined };
    try {
      output = await this.client.send(
        new SendEmailCommand({
          FromEmailAddress: email.from,
          Destination: { ToAddresses: [...email.to] },
          Content: { Raw: { Data: email.raw } },
          ConfigurationSetName: this.config.configurationSetName,
          EmailTags: tags.length > 0 ? tags : undefined,
        }),
      );
    } catch (error) {
      throw toSendError(error);
    }
    if (!output.MessageId) throw new Error('SES accepted the message but returned no MessageId');
    return { messageId: output.MessageId };
  }
}

const THROTTLING = new Set(['TooManyRequestsException', 'ThrottlingException', 'Throttling']);

const PERMANENT: Readonly<Record<string, PermanentSendReason>> = {
  MessageRejected: 'MESSAGE_REJECTED',
  MailFromDomainNotVerifiedException: 'MAIL_FROM_DOMAIN_NOT_VERIFIED',
  AccountSuspendedException: 'ACCOUNT_SUSPENDED',
  SendingPausedException: 'SENDING_PAUSED',
  BadRequestException: 'BAD_REQUEST',
  NotFoundException: 'NOT_FOUND',
};

/** Maps an SES error to a typed send error; errors it does not know are returned unchanged. */
export function toSendError(error: unknown): unknown {
  const name = awsErrorName(error);
  const message = awsErrorMessage(error);
  if (name !== undefined && THROTTLING.has(name)) {
    // SES says "Daily message quota exceeded" or "Maximum sending rate exceeded".
    const reason = /daily/i.test(message) ? 'DAILY_QUOTA_EXCEEDED' : 'RATE_EXCEEDED';
    return new RetryableSendError(reason, `SES throttled the send: ${message}`, { cause: error });
  }
  const permanent = name === undefined ? undefined : PERMANENT[name];
  if (permanent)
    return new PermanentSendError(permanent, `SES refused the send: ${message}`, { cause: error });
  const status = awsHttpStatus(error);
  if (name === 'InternalServiceErrorException' || (status !== undefined && status >= 500)) {
    return new RetryableSendError('SERVICE_ERROR', `SES failed: ${message}`, { cause: error });
  }
  return error;
}

const TAG_MAX_LENGTH = 256;

/**
 * Message tags in SES's charset (`[A-Za-z0-9_-]`, at most 256 characters): other characters
 * become `_`. A tag whose name or value ends up empty is dropped, since SES rejects it.
 */
export function sesTags(tags: Readonly<Record<string, string>>): MessageTag[] {
  const clean = (s: string) => s.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, TAG_MAX_LENGTH);
  return Object.entries(tags)
    .map(([name, value]) => ({ Name: clean(name), Value: clean(value) }))
    .filter((tag) => tag.Name.length > 0 && tag.Value.length > 0);
}
