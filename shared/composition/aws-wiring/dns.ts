/**
 * The DNS resolver's adapter factory: the system resolver, loaded on first use.
 * One factory per module (see `AwsWiring`, ../aws.ts): an entry point imports the factories it is wired
 * with, and no other factory's `import()` is in its bundle's graph.
 */
import type { DnsPort } from '../../ports';
import type { PortFactory } from '../aws';

export const systemDns: PortFactory<DnsPort> = async () => {
  const { SystemDns } = await import('../../adapters/aws/dns');
  return new SystemDns();
};
