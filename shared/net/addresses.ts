/**
 * Which IP addresses an outgoing request made on a user's behalf (a WEBHOOK step) may reach:
 * public unicast only. Private networks, loopback, link-local (with the cloud metadata service),
 * documentation, benchmarking, multicast and reserved ranges are refused, and so are IPv6 forms
 * that carry an IPv4 address (IPv4-mapped, NAT64, 6to4), by what the IPv4 address inside is.
 */
import { type BlockList, isIP } from 'node:net';

type Rule = readonly [cidr: string, reason: string];

/** Most specific first: the first match names the reason. */
const IPV4_RULES: readonly Rule[] = [
  ['169.254.169.254/32', 'cloud metadata address'],
  ['0.0.0.0/8', 'unspecified address'],
  ['10.0.0.0/8', 'private address'],
  ['100.64.0.0/10', 'carrier-grade NAT address'],
  ['127.0.0.0/8', 'loopback address'],
  ['169.254.0.0/16', 'link-local address'],
  ['172.16.0.0/12', 'private address'],
  ['192.0.0.0/24', 'IETF protocol address'],
  ['192.0.2.0/24', 'documentation address'],
  ['192.88.99.0/24', '6to4 relay address'],
  ['192.168.0.0/16', 'private address'],
  ['198.18.0.0/15', 'benchmarking address'],
  ['198.51.100.0/24', 'documentation address'],
  ['203.0.113.0/24', 'documentation address'],
  ['255.255.255.255/32', 'broadcast address'],
  ['224.0.0.0/4', 'multicast address'],
  ['240.0.0.0/4', 'reserved address'],
];

/**
 * IPv6 ranges refused outright. IPv4-mapped (::ffff:0:0/96), NAT64 (64:ff9b::/96) and 6to4
 * (2002::/16) are not here: they are judged by their embedded IPv4 address (`embeddedIpv4`).
 */
const IPV6_RULES: readonly Rule[] = [
  ['::/128', 'unspecified address'],
  ['::1/128', 'loopback address'],
  ['fd00:ec2::254/128', 'cloud metadata address'],
  // Deprecated IPv4-compatible addresses: nothing legitimate uses them any more.
  ['::/96', 'IPv4-compatible address'],
  ['100::/64', 'discard-only address'],
  ['2001:db8::/32', 'documentation address'],
  ['3fff::/20', 'documentation address'],
  // Teredo embeds an obfuscated IPv4 client address; no webhook receiver needs it.
  ['2001::/32', 'Teredo tunnel address'],
  // NAT64 for local use (RFC 8215): translated by a private gateway, so like a private address.
  ['64:ff9b:1::/48', 'private NAT64 address'],
  ['fe80::/10', 'link-local address'],
  ['fc00::/7', 'private address'],
  ['ff00::/8', 'multicast address'],
  // Everything else outside global unicast (2000::/3): unassigned, site-local, reserved.
  ['::/3', 'reserved address'],
  ['4000::/2', 'reserved address'],
  ['8000::/1', 'reserved address'],
];

interface CompiledRule {
  readonly list: BlockList;
  readonly reason: string;
}

function compileRules(rules: readonly Rule[], family: 'ipv4' | 'ipv6'): CompiledRule[] {
  return rules.map(([cidr, reason]) => {
    const [network, prefix] = cidr.split('/') as [string, string];
    // Read here, not imported: `BlockList` is one of node:net's exports that load more on first
    // read, which the bundled node:net (lib/builtins/net.mjs) leaves out.
    const list = new (process.getBuiltinModule('node:net').BlockList)();
    list.addSubnet(network, Number(prefix), family);
    return { list, reason };
  });
}

/** Compiled on first use, so that importing this module costs nothing. */
let compiled: { readonly ipv4: CompiledRule[]; readonly ipv6: CompiledRule[] } | undefined;
const rules = () =>
  (compiled ??= { ipv4: compileRules(IPV4_RULES, 'ipv4'), ipv6: compileRules(IPV6_RULES, 'ipv6') });

/**
 * Why `ip` must not be reached, or undefined when it is a public address. Takes any IPv4 or
 * IPv6 literal (an IPv6 zone index such as `%eth0` is ignored), including the IPv4 forms a URL
 * host may be written in (`parseIpv4Literal`). Anything else is refused as not an IP address.
 */
export function isForbiddenAddress(ip: string): string | undefined {
  const address = ip
    .trim()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/%.*$/, '');
  const family = isIP(address);
  if (family === 4) return ipv4Reason(address);
  if (family === 6) return ipv6Reason(address);
  const ipv4 = parseIpv4Literal(address);
  if (ipv4 !== undefined) return ipv4Reason(ipv4);
  return 'not an IP address';
}

function ipv4Reason(address: string): string | undefined {
  return rules().ipv4.find((r) => r.list.check(address, 'ipv4'))?.reason;
}

function ipv6Reason(address: string): string | undefined {
  const groups = ipv6Groups(address);
  const embedded = embeddedIpv4(groups);
  if (embedded) {
    const reason = ipv4Reason(embedded.ipv4);
    return reason === undefined ? undefined : `${reason} ${embedded.ipv4} in ${embedded.form} form`;
  }
  return rules().ipv6.find((r) => r.list.check(address, 'ipv6'))?.reason;
}

/** The IPv4 address an IPv6 address stands for, in the forms that are routed to one. */
function embeddedIpv4(g: readonly number[]): { ipv4: string; form: string } | undefined {
  const zero = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  const last32 = () => dotted(g[6]!, g[7]!);
  // ::ffff:a.b.c.d
  if (zero(0, 5) && g[5] === 0xffff) return { ipv4: last32(), form: 'IPv4-mapped' };
  // ::ffff:0:a.b.c.d (SIIT "IPv4-translated")
  if (zero(0, 4) && g[4] === 0xffff && g[5] === 0) return { ipv4: last32(), form: 'IPv4-translated' };
  // 64:ff9b::a.b.c.d
  if (g[0] === 0x64 && g[1] === 0xff9b && zero(2, 6)) return { ipv4: last32(), form: 'NAT64' };
  // 2002:aabb:ccdd::/48 routes to a.b.c.d's 6to4 gateway
  if (g[0] === 0x2002) return { ipv4: dotted(g[1]!, g[2]!), form: '6to4' };
  return undefined;
}

function dotted(high: number, low: number): string {
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

/** The eight 16-bit groups of a valid IPv6 literal (as `isIP` accepts, without zone index). */
function ipv6Groups(address: string): number[] {
  let text = address.toLowerCase();
  const tail: number[] = [];
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4?.[1]) {
    const bytes = v4[1].split('.').map(Number) as [number, number, number, number];
    tail.push((bytes[0] << 8) | bytes[1], (bytes[2] << 8) | bytes[3]);
    text = text.slice(0, -v4[1].length);
    // `::1.2.3.4` leaves `::`, `::ffff:1.2.3.4` leaves `::ffff:`.
    if (text.endsWith(':') && !text.endsWith('::')) text = text.slice(0, -1);
  }
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((g) => Number.parseInt(g, 16)));
  const [head, rest] = text.split('::') as [string, string | undefined];
  const left = parse(head);
  const right = [...parse(rest ?? ''), ...tail];
  const fill = rest === undefined ? [] : new Array<number>(8 - left.length - right.length).fill(0);
  return [...left, ...fill, ...right];
}

/**
 * An IPv4 address written in one of the forms the WHATWG URL parser (and `inet_aton`) accepts as
 * a host: one to four parts, each decimal, octal (leading `0`) or hex (`0x`), the last one
 * filling the remaining bytes: `2130706433`, `0x7f000001`, `0177.0.0.1` and `127.1` are all
 * 127.0.0.1. Returns the dotted-decimal form, or undefined when `host` is not such an address.
 */
export function parseIpv4Literal(host: string): string | undefined {
  const parts = host.split('.');
  if (parts.length > 1 && parts.at(-1) === '') parts.pop();
  if (parts.length === 0 || parts.length > 4) return undefined;
  const numbers: number[] = [];
  for (const part of parts) {
    const n = parseIpv4Number(part);
    if (n === undefined) return undefined;
    numbers.push(n);
  }
  const last = numbers.pop()!;
  if (numbers.some((n) => n > 255) || last >= 256 ** (4 - numbers.length)) return undefined;
  let value = last;
  numbers.forEach((n, i) => {
    value += n * 256 ** (3 - i);
  });
  return [value >>> 24, (value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff].join('.');
}

function parseIpv4Number(part: string): number | undefined {
  if (part === '') return undefined;
  let digits = part;
  let radix = 10;
  if (/^0x/i.test(part)) {
    digits = part.slice(2);
    radix = 16;
  } else if (part.length > 1 && part.startsWith('0')) {
    digits = part.slice(1);
    radix = 8;
  }
  if (digits === '') return 0; // `0x` alone is zero, as the URL parser has it
  const valid = radix === 16 ? /^[0-9a-f]+$/i : radix === 8 ? /^[0-7]+$/ : /^[0-9]+$/;
  if (!valid.test(digits)) return undefined;
  const n = Number.parseInt(digits, radix);
  // Past 2^32 the value cannot be an address; also keeps parseInt within exact integers.
  return n <= 0xffffffff ? n : undefined;
}
