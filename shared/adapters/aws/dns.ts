/** DnsPort over the system's DNS servers (node:dns/promises), used on AWS. */
import { Resolver } from 'node:dns/promises';
import type { DnsPort, DnsRecordType } from '../../ports';

/** The subset of `node:dns/promises` `Resolver` this adapter uses; tests pass a fake. */
export interface DnsResolver {
  resolve4(name: string): Promise<string[]>;
  resolve6(name: string): Promise<string[]>;
  resolveCname(name: string): Promise<string[]>;
  resolveNs(name: string): Promise<string[]>;
  resolveMx(name: string): Promise<{ priority: number; exchange: string }[]>;
  resolveTxt(name: string): Promise<string[][]>;
}

export interface SystemDnsOptions {
  /** Per-query timeout in milliseconds (one try, no retries). @default 3000 */
  readonly timeoutMs?: number;
  /** Resolver to use instead of a new `Resolver` over the system's servers. */
  readonly resolver?: DnsResolver;
}

/** Answers that mean "no such records" rather than a failure. */
const EMPTY_ANSWER_CODES = new Set(['ENODATA', 'ENOTFOUND']);

export class SystemDns implements DnsPort {
  private readonly resolver: DnsResolver;

  constructor(options: SystemDnsOptions = {}) {
    // One try with a short timeout: a request path must not hang on a slow name server.
    this.resolver = options.resolver ?? new Resolver({ timeout: options.timeoutMs ?? 3000, tries: 1 });
  }

  async resolve(name: string, type: DnsRecordType): Promise<string[]> {
    try {
      return await this.query(name, type);
    } catch (error) {
      if (EMPTY_ANSWER_CODES.has((error as NodeJS.ErrnoException | undefined)?.code ?? '')) return [];
      throw error;
    }
  }

  private async query(name: string, type: DnsRecordType): Promise<string[]> {
    const r = this.resolver;
    switch (type) {
      case 'A':
        return r.resolve4(name);
      case 'AAAA':
        return r.resolve6(name);
      case 'CNAME':
        return r.resolveCname(name);
      case 'NS':
        return r.resolveNs(name);
      case 'MX':
        return (await r.resolveMx(name)).map((mx) => `${mx.priority} ${mx.exchange}`);
      case 'TXT':
        return (await r.resolveTxt(name)).map((chunks) => chunks.join(''));
    }
  }
}
