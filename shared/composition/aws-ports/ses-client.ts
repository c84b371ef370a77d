/** One SES client per cold start, shared by the mailer and the identities. */
import { SESv2Client } from '@aws-sdk/client-sesv2';

let client: SESv2Client | undefined;

export const sesClient = (): SESv2Client => {
  client ??= new SESv2Client({});
  return client;
};
