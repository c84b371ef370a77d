/** The DNS zones port over Route 53, with its client (see aws-wiring/route53.ts, `route53Zones`). */
import { Route53Client } from '@aws-sdk/client-route-53';
import { Route53Zones } from '../../adapters/aws/route53';
import type { DnsZonePort } from '../../ports';

export function route53Zones(): DnsZonePort {
  return new Route53Zones(new Route53Client({}));
}
