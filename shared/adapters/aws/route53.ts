/** DnsZonePort over the account's Amazon Route 53 public hosted zones. */
import {
  ChangeResourceRecordSetsCommand,
  ListHostedZonesByNameCommand,
  type Route53Client,
} from '@aws-sdk/client-route-53';
import type { DnsZonePort, HostedZone, ZoneRecord } from '../../ports';

export interface Route53ZonesOptions {
  /** TTL of the record sets it writes, in seconds. @default 300 */
  readonly ttlSeconds?: number;
}

/** Route 53 sorts zones by name with the labels reversed; ten covers same-name duplicates. */
const ZONES_PER_NAME = 10;

export class Route53Zones implements DnsZonePort {
  private readonly ttl: number;

  constructor(
    private readonly client: Route53Client,
    options: Route53ZonesOptions = {},
  ) {
    this.ttl = options.ttlSeconds ?? 300;
  }

  async findZone(domain: string): Promise<HostedZone | undefined> {
    // The domain itself first, then each parent; a single label (a TLD) is never a candidate.
    const labels = normalize(domain).split('.');
    for (let i = 0; i < labels.length - 1; i++) {
      const name = labels.slice(i).join('.');
      const out = await this.client.send(
        new ListHostedZonesByNameCommand({ DNSName: name, MaxItems: ZONES_PER_NAME }),
      );
      const matches = (out.HostedZones ?? []).filter(
        (zone) => normalize(zone.Name ?? '') === name && zone.Config?.PrivateZone !== true,
      );
      if (matches.length > 1) {
        // Which one the registrar delegates to cannot be told from here; writing to the wrong
        // one would look like success and change nothing.
        throw new Error(
          `The account has ${matches.length} public hosted zones named ${name}; add the records to the delegated one yourself`,
        );
      }
      const zone = matches[0];
      if (zone?.Id) return { id: zone.Id.replace(/^\/hostedzone\//, ''), name };
    }
    return undefined;
  }

  async upsertRecords(zone: HostedZone, records: readonly ZoneRecord[]): Promise<void> {
    if (records.length === 0) return;
    await this.client.send(
      new ChangeResourceRecordSetsCommand({
        HostedZoneId: zone.id,
        ChangeBatch: {
          Comment: 'Sesame sender domain records',
          Changes: records.map((record) => ({
            Action: 'UPSERT',
            ResourceRecordSet: {
              Name: record.name,
              Type: record.type,
              TTL: this.ttl,
              ResourceRecords: [{ Value: record.type === 'TXT' ? txtValue(record.value) : record.value }],
            },
          })),
        },
      }),
    );
  }
}

const normalize = (name: string) => name.trim().toLowerCase().replace(/\.$/, '');

/**
 * A TXT value as Route 53 takes it: quoted strings of at most 255 characters each, with quotes
 * and backslashes escaped.
 */
export function txtValue(text: string): string {
  const chunks: string[] = [];
  for (let i = 0; i < text.length || chunks.length === 0; i += 255) chunks.push(text.slice(i, i + 255));
  return chunks.map((chunk) => `"${chunk.replace(/[\\"]/g, (c) => `\\${c}`)}"`).join(' ');
}
