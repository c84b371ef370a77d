/**
 * DnsPort answering only from a JSON zone file (`SESAME_DNS_FILE`), so domain verification and
 * address checks can be exercised locally and deterministically:
 *
 *     {"acme.io": {"MX": ["10 mx.acme.io"], "NS": ["ns1.acme.io"], "TXT": ["v=spf1 -all"]}}
 *
 * Types A, AAAA, MX, NS, TXT and CNAME; names are case-insensitive and a trailing dot is ignored;
 * a value may be one string or a list. Unknown names and types answer []. The file is read again
 * whenever its modification time or size changes, so edits apply without a restart. A missing
 * file is an empty zone; a malformed one rejects with the reason.
 */
import { statSync } from 'node:fs';
import type { DnsPort, DnsRecordType } from '../../ports';
import { readFileIfExists } from './files';

const TYPES: readonly DnsRecordType[] = ['A', 'AAAA', 'MX', 'NS', 'TXT', 'CNAME'];

type Zone = ReadonlyMap<string, ReadonlyMap<DnsRecordType, readonly string[]>>;

export const normalizeName = (name: string) => name.trim().toLowerCase().replace(/\.$/, '');

export class ZoneFileDns implements DnsPort {
  private zone: Zone = new Map();
  private version: string | undefined;

  constructor(readonly path: string) {}

  async resolve(name: string, type: DnsRecordType): Promise<string[]> {
    const zone = this.load();
    return [...(zone.get(normalizeName(name))?.get(type) ?? [])];
  }

  private load(): Zone {
    let version: string;
    try {
      const stat = statSync(this.path);
      version = `${stat.mtimeMs}:${stat.size}`;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      version = 'missing';
    }
    if (version === this.version) return this.zone;
    const text = readFileIfExists(this.path)?.toString('utf8');
    this.zone = text === undefined ? new Map() : parseZone(text, this.path);
    this.version = version;
    return this.zone;
  }
}

/** Parses and checks a zone file's JSON; throws naming the file and the problem. */
export function parseZone(text: string, source = 'zone file'): Zone {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new Error(`DNS zone file ${source} is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new Error(`DNS zone file ${source} must be an object of domain names`);
  }
  const zone = new Map<string, Map<DnsRecordType, string[]>>();
  for (const [rawName, records] of Object.entries(data)) {
    if (typeof records !== 'object' || records === null || Array.isArray(records)) {
      throw new Error(`DNS zone file ${source}: "${rawName}" must map record types to values`);
    }
    const name = normalizeName(rawName);
    const byType = zone.get(name) ?? new Map<DnsRecordType, string[]>();
    for (const [rawType, values] of Object.entries(records as Record<string, unknown>)) {
      const type = rawType.toUpperCase() as DnsRecordType;
      if (!TYPES.includes(type)) {
        throw new Error(
          `DNS zone file ${source}: "${rawName}" has unsupported type ${rawType} (use ${TYPES.join(', ')})`,
        );
      }
      const list = typeof values === 'string' ? [values] : values;
      if (!Array.isArray(list) || !list.every((v) => typeof v === 'string')) {
        throw new Error(
          `DNS zone file ${source}: ${rawName} ${rawType} must be a string or a list of strings`,
        );
      }
      byType.set(type, [...(byType.get(type) ?? []), ...(list as string[])]);
    }
    zone.set(name, byType);
  }
  return zone;
}
