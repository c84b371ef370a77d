/** EmailIdentityPort over Amazon SES v2 domain identities (Easy DKIM, custom MAIL FROM). */
import {
  CreateEmailIdentityCommand,
  DeleteEmailIdentityCommand,
  type DkimAttributes,
  GetEmailIdentityCommand,
  type MailFromAttributes,
  PutEmailIdentityMailFromAttributesCommand,
  type SESv2Client,
} from '@aws-sdk/client-sesv2';
import type { DomainIdentity, EmailIdentityPort, IdentityCheckStatus } from '../../ports';
import { awsErrorName } from './aws-errors';

/** Where Easy DKIM keys live when SES does not name the zone (older responses). */
const DEFAULT_SIGNING_ZONE = 'dkim.amazonses.com';

export class SesEmailIdentities implements EmailIdentityPort {
  private region: Promise<string> | undefined;

  constructor(private readonly client: SESv2Client) {}

  async createDomainIdentity(domain: string): Promise<{ created: boolean; identity: DomainIdentity }> {
    try {
      // No DkimSigningAttributes: SES sets up Easy DKIM and answers with its three tokens.
      const out = await this.client.send(new CreateEmailIdentityCommand({ EmailIdentity: domain }));
      return {
        created: true,
        identity: await this.toIdentity(domain, {
          verified: out.VerifiedForSendingStatus,
          dkim: out.DkimAttributes,
          mailFrom: undefined,
        }),
      };
    } catch (error) {
      if (awsErrorName(error) !== 'AlreadyExistsException') throw error;
    }
    const identity = await this.getDomainIdentity(domain);
    // Deleted between the two calls: create it again, once.
    if (!identity) return this.createDomainIdentity(domain);
    return { created: false, identity };
  }

  async setMailFromDomain(domain: string, mailFromDomain: string): Promise<void> {
    await this.client.send(
      new PutEmailIdentityMailFromAttributesCommand({
        EmailIdentity: domain,
        MailFromDomain: mailFromDomain,
        // Until the MX is published, send with SES's own MAIL FROM rather than refuse to send.
        BehaviorOnMxFailure: 'USE_DEFAULT_VALUE',
      }),
    );
  }

  async getDomainIdentity(domain: string): Promise<DomainIdentity | undefined> {
    try {
      const out = await this.client.send(new GetEmailIdentityCommand({ EmailIdentity: domain }));
      return await this.toIdentity(domain, {
        verified: out.VerifiedForSendingStatus,
        dkim: out.DkimAttributes,
        mailFrom: out.MailFromAttributes,
      });
    } catch (error) {
      if (awsErrorName(error) === 'NotFoundException') return undefined;
      throw error;
    }
  }

  async deleteDomainIdentity(domain: string): Promise<void> {
    try {
      await this.client.send(new DeleteEmailIdentityCommand({ EmailIdentity: domain }));
    } catch (error) {
      if (awsErrorName(error) !== 'NotFoundException') throw error;
    }
  }

  private async toIdentity(
    domain: string,
    state: { verified?: boolean; dkim?: DkimAttributes; mailFrom?: MailFromAttributes },
  ): Promise<DomainIdentity> {
    const zone = state.dkim?.SigningHostedZone ?? DEFAULT_SIGNING_ZONE;
    // Tokens name CNAMEs only for Easy DKIM; with a key of one's own they are selectors of TXT records.
    const easyDkim = (state.dkim?.SigningAttributesOrigin ?? 'AWS_SES') === 'AWS_SES';
    const tokens = easyDkim ? (state.dkim?.Tokens ?? []) : [];
    return {
      domain,
      verifiedForSending: state.verified === true,
      dkimStatus: (state.dkim?.Status ?? 'NOT_STARTED') as IdentityCheckStatus,
      dkimRecords: tokens.map((token) => ({
        name: `${token}._domainkey.${domain}`,
        value: `${token}.${zone}`,
      })),
      mailFromDomain: state.mailFrom?.MailFromDomain || undefined,
      mailFromStatus: state.mailFrom?.MailFromDomainStatus as IdentityCheckStatus | undefined,
      mailFromMx: `10 feedback-smtp.${await this.regionName()}.amazonses.com`,
    };
  }

  /** The client's region: SES's feedback MX host is per region. */
  private regionName(): Promise<string> {
    this.region ??= this.client.config.region();
    return this.region;
  }
}
