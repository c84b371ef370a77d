/**
 * Ports: everything domain code needs from the outside world. Each port that talks to AWS has
 * two adapters, one over the AWS SDK (`shared/adapters/aws`) and one local
 * (`shared/adapters/local`); the composition roots pick one. The DynamoDB store is the same code
 * in both modes, pointed at a different endpoint.
 */
import type { AppConfig } from '../config/env';
import type { QueueName } from '../manifest';
import type { Store } from '../store/store';

/** A message on a work queue. `type` names the job kind within that queue. */
export interface QueueMessage {
  readonly type: string;
  readonly [key: string]: unknown;
}

/**
 * Job messages are not sent here directly but through `enqueue` / `scheduleJob`
 * (shared/jobs/registry.ts), which check them against their job's schema first.
 */
export interface QueuePort {
  /** Enqueue one message; delivery is at-least-once, so consumers must be idempotent. */
  send(queue: QueueName, message: QueueMessage, options?: { delaySeconds?: number }): Promise<void>;
}

export interface ScheduleInput {
  /** Unique name within the project's deployment; re-using a name replaces the schedule. */
  readonly name: string;
  readonly at: Date;
  readonly queue: QueueName;
  readonly message: QueueMessage;
}

export interface SchedulerPort {
  /** A one-off schedule that puts `message` on `queue` at `at`. */
  scheduleAt(input: ScheduleInput): Promise<void>;
  /** Deletes a one-off schedule; deleting an unknown one is not an error. */
  cancel(name: string): Promise<void>;
}

export interface RawEmail {
  readonly from: string;
  readonly to: readonly string[];
  /** The full RFC 5322 message. */
  readonly raw: Uint8Array;
  /** Tags carried to SES events (for example emailId, projectId). */
  readonly tags?: Readonly<Record<string, string>>;
}

export interface MailerPort {
  sendRaw(email: RawEmail): Promise<{ messageId: string }>;
  /**
   * The account's maximum send rate (messages a second) as the provider reports it, or undefined
   * when it has none to report (the local mail sink) or could not be asked.
   */
  maxSendRate(): Promise<number | undefined>;
}

export type DnsRecordType = 'A' | 'AAAA' | 'MX' | 'NS' | 'TXT' | 'CNAME';

export interface DnsPort {
  /**
   * Records of one type for a name, as strings: MX as "<priority> <exchange>", TXT with its
   * chunks joined. A name or type with no records answers []; other failures reject.
   */
  resolve(name: string, type: DnsRecordType): Promise<string[]>;
}

/** Where SES stands on one check of an identity (SES's own status names). */
export type IdentityCheckStatus = 'PENDING' | 'SUCCESS' | 'FAILED' | 'TEMPORARY_FAILURE' | 'NOT_STARTED';

/** A domain identity as the email provider (SES) sees it. */
export interface DomainIdentity {
  readonly domain: string;
  /** The provider will send mail from the domain (its DKIM records were found). */
  readonly verifiedForSending: boolean;
  readonly dkimStatus: IdentityCheckStatus;
  /** The CNAMEs Easy DKIM looks for: `<token>._domainkey.<domain>` -> `<token>.<signing zone>`. */
  readonly dkimRecords: readonly { readonly name: string; readonly value: string }[];
  /** The custom MAIL FROM domain, when one is set. */
  readonly mailFromDomain: string | undefined;
  readonly mailFromStatus: IdentityCheckStatus | undefined;
  /** The MX value a MAIL FROM domain must publish, as "<priority> <host>". */
  readonly mailFromMx: string;
}

export interface EmailIdentityPort {
  /**
   * Creates a domain identity with Easy DKIM. An identity that already exists is left as it is
   * and returned with `created: false`.
   */
  createDomainIdentity(domain: string): Promise<{ created: boolean; identity: DomainIdentity }>;
  /** Sets the custom MAIL FROM domain; until its MX is found, mail uses the provider's own. */
  setMailFromDomain(domain: string, mailFromDomain: string): Promise<void>;
  /** The identity's current state, or undefined when there is none. */
  getDomainIdentity(domain: string): Promise<DomainIdentity | undefined>;
  /** Deleting an identity that does not exist is not an error. */
  deleteDomainIdentity(domain: string): Promise<void>;
}

/** A DNS zone hosted in the account (Route 53 on AWS). */
export interface HostedZone {
  readonly id: string;
  /** Lower case, without the trailing dot. */
  readonly name: string;
}

/** One record set to publish; TXT values are given unquoted. */
export interface ZoneRecord {
  readonly type: 'CNAME' | 'MX' | 'TXT';
  readonly name: string;
  readonly value: string;
}

export interface DnsZonePort {
  /**
   * The account's public zone holding `domain`: the one named like it or like its closest
   * parent; undefined when there is none. Rejects when the answer is ambiguous.
   */
  findZone(domain: string): Promise<HostedZone | undefined>;
  /** Creates each record set (name and type), or replaces its values when it exists. */
  upsertRecords(zone: HostedZone, records: readonly ZoneRecord[]): Promise<void>;
}

export interface BlobPort {
  put(key: string, body: Uint8Array, contentType: string): Promise<void>;
  get(key: string): Promise<Uint8Array | undefined>;
  delete(key: string): Promise<void>;
}

/**
 * Public hosting of uploaded images (`POST /uploads/image`): on AWS an S3 bucket served through
 * CloudFront, locally the runtime itself (`GET /_local/images/...`). Keys are made by the code
 * (shared/uploads/images.ts), never taken from a request.
 */
export interface ImagePort {
  /**
   * Stores `body` under `key`, to be served as `contentType`, and answers the public URL it is
   * served at: anyone may fetch it, for as long as the deployment lives.
   */
  put(key: string, body: Uint8Array, contentType: string): Promise<{ url: string }>;
}

/**
 * Amazon SNS's own HTTPS endpoints, as an HTTPS subscriber of a topic reaches them
 * (`POST /webhooks/sns`, shared/sns). Both URLs come from a request body, so every method refuses
 * (rejects) a URL that is not SNS's (shared/sns/urls.ts) before making any request.
 */
export interface SnsEndpointsPort {
  /**
   * The PEM signing certificate at `url` (`SigningCertURL`), which must be an SNS certificate URL
   * (`isSnsCertificateUrl`). Rejects when it cannot be fetched.
   */
  signingCertificate(url: string): Promise<string>;
  /**
   * GETs a subscription confirmation's `SubscribeURL`, which confirms the subscription; it must be
   * on an SNS host (`isSnsSubscribeUrl`). Rejects unless SNS answers 2xx.
   */
  confirmSubscription(subscribeUrl: string): Promise<void>;
}

/**
 * Mail the deployment received, as the email provider stored it: on AWS the raw MIME that SES's
 * receipt rule put in the inbound bucket under `inbound/<SES message id>`
 * (lib/constructs/inbound-mail.ts), locally what `POST /_local/inbound` stored. Read-only: the
 * provider writes, and the bucket's lifecycle expires (shared/inbound).
 */
export interface InboundMailPort {
  /** The raw message stored under `key`, or undefined when there is none (expired, never stored). */
  get(key: string): Promise<Uint8Array | undefined>;
}

/**
 * The billing provider (Stripe, shared/adapters/stripe): hosted checkout and billing portal pages,
 * a customer's invoices, and the signed events it sends to `POST /webhooks/incoming/stripe`.
 * Configured only when the deployment has a Stripe key (`AppConfig.billingEnabled`) and, for the
 * events, a webhook secret (`billingWebhooksEnabled`); callers check those first.
 */
export interface BillingPort {
  /**
   * A hosted checkout page subscribing the project to the deployment's price. The project id is
   * carried as the session's reference and in the subscription's metadata, so later events name it.
   */
  createCheckoutSession(input: {
    readonly projectId: string;
    /** The project's customer, when it has one already; otherwise the page creates one. */
    readonly customerId?: string;
    /** Prefilled on a new customer. */
    readonly email?: string;
    readonly successUrl: string;
    readonly cancelUrl: string;
  }): Promise<{ id: string; url: string }>;
  /** A billing portal page of the customer, which returns to `returnUrl`. */
  createPortalSession(input: { readonly customerId: string; readonly returnUrl: string }): Promise<{
    url: string;
  }>;
  /** The customer's invoices, newest first, `limit` at most, after the invoice `startingAfter`. */
  listInvoices(input: {
    readonly customerId: string;
    readonly limit: number;
    readonly startingAfter?: string;
  }): Promise<{ invoices: BillingInvoice[]; hasMore: boolean }>;
  /**
   * Checks a delivery's signature header against the raw body (and its timestamp against
   * `receivedAt`) and answers the event it carries, or why it was refused.
   */
  verifyWebhook(input: {
    readonly rawBody: Uint8Array;
    readonly signature: string | undefined;
    readonly receivedAt: Date;
  }): Promise<{ ok: true; event: BillingEvent } | { ok: false; reason: string }>;
}

export interface BillingInvoice {
  readonly id: string;
  readonly number: string | null;
  /** draft, open, paid, uncollectible or void. */
  readonly status: string | null;
  /** ISO 4217, lower case. */
  readonly currency: string;
  /** In the currency's smallest unit (cents). */
  readonly total: number;
  readonly amountDue: number;
  readonly amountPaid: number;
  readonly createdAt: string;
  readonly periodStart: string;
  readonly periodEnd: string;
  readonly hostedInvoiceUrl: string | null;
  readonly invoicePdf: string | null;
}

/**
 * A verified provider event, reduced to what Sesame acts on. `id` is the provider's event id
 * (deliveries of one event share it), `created` its creation time in epoch seconds.
 */
export type BillingEvent = { readonly id: string; readonly type: string; readonly created: number } & (
  | {
      /** A checkout finished: the project has a customer and a subscription. */
      readonly kind: 'checkout-completed';
      readonly projectId: string | undefined;
      readonly customerId: string;
      readonly subscriptionId: string | undefined;
    }
  | {
      /** A subscription was created, changed or ended; `status` is the provider's. */
      readonly kind: 'subscription';
      readonly projectId: string | undefined;
      readonly customerId: string;
      readonly subscriptionId: string;
      readonly status: string;
    }
  | {
      /** An invoice payment failed; `finalAttempt` when the provider will not try it again. */
      readonly kind: 'payment-failed';
      readonly customerId: string;
      readonly subscriptionId: string | undefined;
      readonly finalAttempt: boolean;
    }
  | { readonly kind: 'ignored' }
);

export interface Clock {
  now(): Date;
}

export interface Ids {
  /** A new random UUID. */
  uuid(): string;
}

/** Everything a handler needs, passed in at the composition root. */
export interface Deps {
  /** The table, through the store seam (shared/store/store.ts); only repositories use it. */
  readonly store: Store;
  readonly queue: QueuePort;
  readonly scheduler: SchedulerPort;
  readonly mailer: MailerPort;
  readonly dns: DnsPort;
  readonly emailIdentities: EmailIdentityPort;
  readonly dnsZones: DnsZonePort;
  readonly blobs: BlobPort;
  readonly images: ImagePort;
  readonly snsEndpoints: SnsEndpointsPort;
  readonly inboundMail: InboundMailPort;
  readonly billing: BillingPort;
  readonly clock: Clock;
  readonly ids: Ids;
  readonly config: AppConfig;
}

export const systemClock: Clock = { now: () => new Date() };
export const randomIds: Ids = { uuid: () => crypto.randomUUID() };
