/**
 * DnsZonePort for the local runtime, over the same JSON zone file that `ZoneFileDns` answers
 * from (SESAME_DNS_FILE), so that `createRecords` can be tried locally end to end:
 *
 * - a name counts as a hosted zone of the "account" when the file gives it NS records, as the
 *   apex of every real zone has them; the zone of a domain is the closest such name at or
 *   above it;
 * - upserting writes each record set into the file (replacing that name's values of that
 *   type, leaving everything else as it was), where `ZoneFileDns` picks them up at once.
 *
 * Without a zone file there are no zones: `findZone` answers undefined.
 */
import type { DnsZonePort, HostedZone, ZoneRecord } from '../../ports';
import { normalizeName, parseZone } from './dns';
import { readFileIfExists, writeFileAtomic } from './files';

export class ZoneFileDnsZones implements DnsZonePort {
  /** @param path the zone file; undefined for none. */
  constructor(readonly path: string | undefined) {}

  async findZone(domain: string): Promise<HostedZone | undefined> {
    if (!this.path) return undefined;
    const text = readFileIfExists(this.path)?.toString('utf8');
    if (text === undefined) return undefined;
    const zone = parseZone(text, this.path);
    const labels = normalizeName(domain).split('.');
    for (let i = 0; i < labels.length - 1; i++) {
      const name = labels.slice(i).join('.');
      if ((zone.get(name)?.get('NS') ?? []).length > 0) return { id: `local:${name}`, name };
    }
    return undefined;
  }

  async upsertRecords(zone: HostedZone, records: readonly ZoneRecord[]): Promise<void> {
    if (!this.path) throw new Error('No zone file is configured (SESAME_DNS_FILE)');
    const text = readFileIfExists(this.path)?.toString('utf8');
    if (text !== undefined) parseZone(text, this.path); // refuse to rewrite a file we cannot read
    const data = (text === undefined ? {} : JSON.parse(text)) as Record<string, Record<string, unknown>>;
    for (const record of records) {
      const name = normalizeName(record.name);
      if (name !== zone.name && !name.endsWith(`.${zone.name}`)) {
        throw new Error(`${record.name} is not in the zone ${zone.name}`);
      }
      // The file may spell a name or type in another case or with a trailing dot.
      const nameKey = Object.keys(data).find((k) => normalizeName(k) === name) ?? name;
      const entry = data[nameKey] ?? {};
      const typeKey = Object.keys(entry).find((k) => k.toUpperCase() === record.type) ?? record.type;
      entry[typeKey] = [record.value];
      data[nameKey] = entry;
    }
    writeFileAtomic(this.path, `${JSON.stringify(data, null, 2)}\n`);
  }
}
