/** The mailer port over SES (see aws-wiring/ses-mailer.ts, `sesMailer`). */
import { SesMailer } from '../../adapters/aws/ses';
import type { MailerPort } from '../../ports';
import type { AwsSettings } from '../aws';
import { sesClient } from './ses-client';

export function sesMailer(settings: AwsSettings): MailerPort {
  return new SesMailer(sesClient(), { configurationSetName: settings.sesConfigurationSet });
}
