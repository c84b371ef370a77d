/**
 * The billing port's factory: Stripe, with its secrets read from SSM, loaded on first use (the
 * stripe package is large: only the functions that bill load it, and only when they call it).
 * One factory per module (see `AwsWiring`, ../aws.ts): an entry point imports the factories it is
 * wired with, and no other factory's `import()` is in its bundle's graph.
 */
import type { BillingPort } from '../../ports';
import type { PortFactory } from '../aws';

export const stripeBilling: PortFactory<BillingPort> = async (settings) =>
  (await import('../aws-ports/stripe')).stripeBilling(settings);
