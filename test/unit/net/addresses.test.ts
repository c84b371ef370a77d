/** Which addresses a webhook may reach (shared/net/addresses.ts): public unicast only. */
import { describe, expect, it } from 'vitest';
import { isForbiddenAddress, parseIpv4Literal } from '../../../shared/net/addresses';

describe('isForbiddenAddress, IPv4', () => {
  // Each range with the address just outside it on both sides, where that side is public.
  it.each([
    ['0.0.0.0', 'unspecified address'],
    ['0.255.255.255', 'unspecified address'],
    ['1.0.0.0', undefined],
    ['9.255.255.255', undefined],
    ['10.0.0.0', 'private address'],
    ['10.0.0.5', 'private address'],
    ['10.255.255.255', 'private address'],
    ['11.0.0.0', undefined],
    ['100.63.255.255', undefined],
    ['100.64.0.0', 'carrier-grade NAT address'],
    ['100.127.255.255', 'carrier-grade NAT address'],
    ['100.128.0.0', undefined],
    ['126.255.255.255', undefined],
    ['127.0.0.0', 'loopback address'],
    ['127.0.0.1', 'loopback address'],
    ['127.255.255.255', 'loopback address'],
    ['128.0.0.0', undefined],
    ['169.253.255.255', undefined],
    ['169.254.0.0', 'link-local address'],
    ['169.254.169.253', 'link-local address'],
    ['169.254.169.254', 'cloud metadata address'],
    ['169.254.169.255', 'link-local address'],
    ['169.254.255.255', 'link-local address'],
    ['169.255.0.0', undefined],
    ['172.15.255.255', undefined],
    ['172.16.0.0', 'private address'],
    ['172.31.255.255', 'private address'],
    ['172.32.0.0', undefined],
    ['191.255.255.255', undefined],
    ['192.0.0.0', 'IETF protocol address'],
    ['192.0.0.255', 'IETF protocol address'],
    ['192.0.1.0', undefined],
    ['192.0.1.255', undefined],
    ['192.0.2.0', 'documentation address'],
    ['192.0.2.255', 'documentation address'],
    ['192.0.3.0', undefined],
    ['192.88.98.255', undefined],
    ['192.88.99.0', '6to4 relay address'],
    ['192.88.99.255', '6to4 relay address'],
    ['192.88.100.0', undefined],
    ['192.167.255.255', undefined],
    ['192.168.0.0', 'private address'],
    ['192.168.255.255', 'private address'],
    ['192.169.0.0', undefined],
    ['198.17.255.255', undefined],
    ['198.18.0.0', 'benchmarking address'],
    ['198.19.255.255', 'benchmarking address'],
    ['198.20.0.0', undefined],
    ['198.51.99.255', undefined],
    ['198.51.100.0', 'documentation address'],
    ['198.51.100.255', 'documentation address'],
    ['198.51.101.0', undefined],
    ['203.0.112.255', undefined],
    ['203.0.113.0', 'documentation address'],
    ['203.0.113.255', 'documentation address'],
    ['203.0.114.0', undefined],
    ['223.255.255.255', undefined],
    ['224.0.0.0', 'multicast address'],
    ['239.255.255.255', 'multicast address'],
    ['240.0.0.0', 'reserved address'],
    ['255.255.255.254', 'reserved address'],
    ['255.255.255.255', 'broadcast address'],
    // Public addresses
    ['8.8.8.8', undefined],
    ['1.1.1.1', undefined],
    ['52.94.236.248', undefined],
  ])('%s: %s', (ip, reason) => {
    expect(isForbiddenAddress(ip)).toBe(reason);
  });
});

describe('isForbiddenAddress, IPv6', () => {
  it.each([
    ['::', 'unspecified address'],
    ['::1', 'loopback address'],
    ['0:0:0:0:0:0:0:1', 'loopback address'],
    ['::2', 'IPv4-compatible address'],
    ['::8.8.8.8', 'IPv4-compatible address'],
    ['::ffff:ffff', 'IPv4-compatible address'],
    ['fe7f:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'reserved address'],
    ['fe80::', 'link-local address'],
    ['fe80::1', 'link-local address'],
    ['fe80::1%eth0', 'link-local address'],
    ['febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'link-local address'],
    ['fec0::1', 'reserved address'],
    ['fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'reserved address'],
    ['fc00::', 'private address'],
    ['fd12:3456::1', 'private address'],
    ['fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'private address'],
    ['fd00:ec2::254', 'cloud metadata address'],
    ['FD00:EC2::254', 'cloud metadata address'],
    ['fd00:ec2::253', 'private address'],
    ['ff00::', 'multicast address'],
    ['ff02::1', 'multicast address'],
    ['ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'multicast address'],
    ['2001:db7:ffff:ffff:ffff:ffff:ffff:ffff', undefined],
    ['2001:db8::', 'documentation address'],
    ['2001:db8:ffff:ffff:ffff:ffff:ffff:ffff', 'documentation address'],
    ['2001:db9::', undefined],
    ['100::', 'discard-only address'],
    ['100::ffff:ffff:ffff:ffff', 'discard-only address'],
    ['100:0:0:1::', 'reserved address'],
    ['2001::1', 'Teredo tunnel address'],
    // Public
    ['2606:4700:4700::1111', undefined],
    ['2a00:1450:4001:82b::200e', undefined],
    ['2600:1f18::1', undefined],
    ['1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'reserved address'],
    ['2000::', undefined],
    ['3ffe:ffff::1', undefined],
    ['4000::', 'reserved address'],
  ])('%s: %s', (ip, reason) => {
    expect(isForbiddenAddress(ip)).toBe(reason);
  });
});

describe('isForbiddenAddress, IPv4 inside IPv6', () => {
  it.each([
    ['::ffff:127.0.0.1', 'loopback address 127.0.0.1 in IPv4-mapped form'],
    ['::ffff:7f00:1', 'loopback address 127.0.0.1 in IPv4-mapped form'],
    ['0:0:0:0:0:ffff:7f00:0001', 'loopback address 127.0.0.1 in IPv4-mapped form'],
    ['::ffff:a9fe:a9fe', 'cloud metadata address 169.254.169.254 in IPv4-mapped form'],
    ['::ffff:10.1.2.3', 'private address 10.1.2.3 in IPv4-mapped form'],
    ['::ffff:0.0.0.0', 'unspecified address 0.0.0.0 in IPv4-mapped form'],
    ['::ffff:8.8.8.8', undefined],
    ['::ffff:0808:0808', undefined],
    ['::ffff:0:127.0.0.1', 'loopback address 127.0.0.1 in IPv4-translated form'],
    ['::ffff:0:8.8.8.8', undefined],
    ['64:ff9b::127.0.0.1', 'loopback address 127.0.0.1 in NAT64 form'],
    ['64:ff9b::a9fe:a9fe', 'cloud metadata address 169.254.169.254 in NAT64 form'],
    ['64:ff9b::c0a8:1', 'private address 192.168.0.1 in NAT64 form'],
    ['64:ff9b::808:808', undefined],
    ['64:ff9b:1::808:808', 'private NAT64 address'],
    ['64:ff9b:0:0:1::808:808', 'reserved address'],
    ['2002:7f00:1::', 'loopback address 127.0.0.1 in 6to4 form'],
    ['2002:a00:1:1::1', 'private address 10.0.0.1 in 6to4 form'],
    ['2002:a9fe:a9fe::', 'cloud metadata address 169.254.169.254 in 6to4 form'],
    ['2002:808:808::1', undefined],
  ])('%s: %s', (ip, reason) => {
    expect(isForbiddenAddress(ip)).toBe(reason);
  });
});

describe('odd IPv4 literals', () => {
  it.each([
    ['2130706433', '127.0.0.1'],
    ['0x7f000001', '127.0.0.1'],
    ['0X7F000001', '127.0.0.1'],
    ['0177.0.0.1', '127.0.0.1'],
    ['0177.0000.0000.0001', '127.0.0.1'],
    ['127.1', '127.0.0.1'],
    ['127.0.1', '127.0.0.1'],
    ['0x7f.1', '127.0.0.1'],
    ['127.0.0.1.', '127.0.0.1'],
    ['0', '0.0.0.0'],
    ['0x', '0.0.0.0'],
    ['169.254.43518', '169.254.169.254'],
    ['0xa9fea9fe', '169.254.169.254'],
    ['012.0.0.1', '10.0.0.1'],
    ['4294967295', '255.255.255.255'],
    ['134744072', '8.8.8.8'],
  ])('%s is %s', (literal, dotted) => {
    expect(parseIpv4Literal(literal)).toBe(dotted);
    expect(isForbiddenAddress(literal)).toBe(isForbiddenAddress(dotted));
  });

  it.each([
    '4294967296',
    '256.0.0.1',
    '1.2.3.4.5',
    '1.2.65536',
    '08.0.0.1',
    '0x7g.0.0.1',
    '1..2',
    '',
    'example.com',
    '1e3',
    '-1',
  ])('%s is not an IPv4 address', (text) => {
    expect(parseIpv4Literal(text)).toBeUndefined();
    expect(isForbiddenAddress(text)).toBe('not an IP address');
  });

  it('refuses anything that is not an address rather than calling it public', () => {
    expect(isForbiddenAddress('localhost')).toBe('not an IP address');
    expect(isForbiddenAddress('[::1')).toBe('not an IP address');
  });

  it('reads bracketed IPv6 as URL hosts write it', () => {
    expect(isForbiddenAddress('[::1]')).toBe('loopback address');
  });
});
