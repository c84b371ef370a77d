/**
 * The SNS endpoints' adapter factory: HTTPS GETs with the global `fetch`, loaded on first use (no
 * SDK client: a certificate and a SubscribeURL are plain HTTPS resources of SNS).
 * One factory per module (see `AwsWiring`, ../aws.ts): an entry point imports the factories it is wired
 * with, and no other factory's `import()` is in its bundle's graph.
 */
import type { SnsEndpointsPort } from '../../ports';
import type { PortFactory } from '../aws';

export const httpsSnsEndpoints: PortFactory<SnsEndpointsPort> = async () => {
  const { HttpsSnsEndpoints } = await import('../../adapters/aws/sns-endpoints');
  return new HttpsSnsEndpoints();
};
