/**
 * The inbound mail's adapter factory: the S3 bucket SES stores received mail in, loaded on first use.
 * One factory per module (see `AwsWiring`, ../aws.ts): an entry point imports the factories it is wired
 * with, and no other factory's `import()` is in its bundle's graph.
 */
import type { InboundMailPort } from '../../ports';
import type { PortFactory } from '../aws';

export const s3InboundMail: PortFactory<InboundMailPort> = async (settings) =>
  (await import('../aws-ports/s3-inbound')).s3InboundMail(settings);
