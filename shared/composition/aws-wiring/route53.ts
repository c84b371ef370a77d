/**
 * The DNS zones' adapter factory: Route 53, loaded on first use.
 * One factory per module (see `AwsWiring`, ../aws.ts): an entry point imports the factories it is wired
 * with, and no other factory's `import()` is in its bundle's graph.
 */
import type { DnsZonePort } from '../../ports';
import type { PortFactory } from '../aws';

export const route53Zones: PortFactory<DnsZonePort> = async () =>
  (await import('../aws-ports/route53')).route53Zones();
