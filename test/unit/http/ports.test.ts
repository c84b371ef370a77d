/** `scopeDeps`: a function's code gets the ports it declares, and a clear refusal for the others. */
import { describe, expect, it, vi } from 'vitest';
import { literalSecret } from '../../../shared/config/env';
import { declaredDeps, scopeDeps, UndeclaredPortError } from '../../../shared/http/ports';
import type { PortUse } from '../../../shared/manifest';
import type { Deps } from '../../../shared/ports';
import { storeOver } from '../../../shared/store/store';

const key = { pk: 'a', sk: 'b' };
const query = { partition: 'a' };

function fakeDeps() {
  /** The store requests that reached the table. */
  const sent: string[] = [];
  const answer =
    <T>(request: string, value: T) =>
    async () => {
      sent.push(request);
      return value;
    };
  const deps = {
    store: storeOver({
      get: answer('get', undefined),
      batchGet: answer('batchGet', []),
      write: answer('write', undefined),
      batchDelete: answer('batchDelete', undefined),
      query: answer('query', { items: [], cursor: '' }),
      async *queryAll() {
        sent.push('queryAll');
        yield* [];
      },
      count: answer('count', 0),
    }),
    queue: { send: vi.fn(async () => {}) },
    scheduler: { scheduleAt: vi.fn(async () => {}), cancel: vi.fn(async () => {}) },
    mailer: { sendRaw: vi.fn(async () => ({ messageId: 'm' })) },
    dns: { resolve: vi.fn(async () => []) },
    emailIdentities: {
      createDomainIdentity: vi.fn(),
      setMailFromDomain: vi.fn(),
      getDomainIdentity: vi.fn(async () => undefined),
      deleteDomainIdentity: vi.fn(),
    },
    dnsZones: { findZone: vi.fn(async () => undefined), upsertRecords: vi.fn() },
    blobs: { put: vi.fn(), get: vi.fn(async () => undefined), delete: vi.fn() },
    clock: { now: () => new Date(0) },
    ids: { uuid: () => 'id' },
    config: { linkSigningSecret: literalSecret('s'.repeat(32)), publicBaseUrl: 'https://x' },
  } as unknown as Deps;
  return { deps, sent };
}

describe('scopeDeps', () => {
  it('hands declared ports over as they are', () => {
    const { deps } = fakeDeps();
    const all: PortUse[] = [
      'table:read',
      'table:write',
      'table:scan',
      'queue',
      'scheduler',
      'blobs',
      'mailer',
      'dns',
      'manage-sender-domains',
      'sign-links',
    ];
    const scoped = scopeDeps(deps, all, 'test');
    for (const port of [
      'store',
      'queue',
      'scheduler',
      'mailer',
      'dns',
      'emailIdentities',
      'dnsZones',
      'blobs',
    ] as const)
      expect(scoped[port], port).toBe(deps[port]);
    expect(scoped.config).toBe(deps.config);
  });

  it('refuses an undeclared port when it is used, naming the owner and the missing use', async () => {
    const { deps } = fakeDeps();
    const scoped = scopeDeps(deps, ['table:read', 'table:write'], 'route group demo');
    // Holding or passing the port is free.
    expect(scoped.mailer).toBeDefined();
    await expect(async () =>
      scoped.mailer.sendRaw({ from: 'a', to: [], raw: new Uint8Array() }),
    ).rejects.toThrow(new UndeclaredPortError('route group demo', 'mailer', 'deps.mailer.sendRaw'));
    expect(deps.mailer.sendRaw).not.toHaveBeenCalled();
    expect(() => scoped.queue.send('jobs', { type: 'x' })).toThrow(/does not declare 'queue'/);
    await expect(async () => scoped.config.linkSigningSecret()).rejects.toThrow(/'sign-links'/);
  });

  it('tells table reads from writes by the store request', async () => {
    const { deps, sent } = fakeDeps();
    const reader = scopeDeps(deps, ['table:read'], 'reader');
    await reader.store.get(key);
    await reader.store.batchGet([key]);
    await reader.store.query(query);
    for await (const _ of reader.store.queryAll(query));
    await reader.store.count(query);
    await reader.store.page(query, { limit: 1 });
    expect(() => reader.store.write({ put: key })).toThrow(
      new UndeclaredPortError('reader', 'table:write', 'deps.store.write'),
    );
    await expect(reader.store.writeIf({ delete: key, if: 'attribute_exists(pk)' })).rejects.toThrow(
      /does not declare 'table:write'/,
    );
    expect(() => reader.store.batchDelete([key])).toThrow(/does not declare 'table:write'/);
    expect(sent).toEqual(['get', 'batchGet', 'query', 'queryAll', 'count', 'query']);

    const writer = scopeDeps(deps, ['table:write'], 'writer');
    await writer.store.write({ put: key });
    await writer.store.writeIf({ put: key, if: 'attribute_not_exists(pk)' });
    await writer.store.batchDelete([key]);
    expect(() => writer.store.get(key)).toThrow(/does not declare 'table:read'/);
    expect(() => writer.store.queryAll(query)).toThrow(/does not declare 'table:read'/);
    await expect(writer.store.page(query, { limit: 1 })).rejects.toThrow(/does not declare 'table:read'/);
    expect(sent.slice(6)).toEqual(['write', 'write', 'batchDelete']);

    const nothing = scopeDeps(deps, [], 'config');
    expect(() => nothing.store.get(key)).toThrow(/'table:read'/);
  });

  it('lets the background check read SES identities but not change them', async () => {
    const { deps } = fakeDeps();
    const check = scopeDeps(deps, ['check-sender-domains'], 'schedule');
    await check.emailIdentities.getDomainIdentity('example.com');
    expect(() => check.emailIdentities.deleteDomainIdentity('example.com')).toThrow(
      /'delete-sender-domains'/,
    );
    expect(() => check.emailIdentities.createDomainIdentity('example.com')).toThrow(
      /'manage-sender-domains'/,
    );
    expect(() => check.dnsZones.findZone('example.com')).toThrow(/'manage-sender-domains'/);
  });

  it('lets a project wipe delete SES identities and do nothing else with them', async () => {
    const { deps } = fakeDeps();
    const wipe = scopeDeps(deps, ['delete-sender-domains'], 'queue jobs');
    await wipe.emailIdentities.deleteDomainIdentity('example.com');
    expect(deps.emailIdentities.deleteDomainIdentity).toHaveBeenCalledWith('example.com');
    expect(() => wipe.emailIdentities.getDomainIdentity('example.com')).toThrow(/'check-sender-domains'/);
    expect(() => wipe.emailIdentities.createDomainIdentity('example.com')).toThrow(/'manage-sender-domains'/);
    expect(() => wipe.dnsZones.upsertRecords({ id: 'z', name: 'example.com' }, [])).toThrow(
      /'manage-sender-domains'/,
    );
    // Scanning the table is a use of its own, not a read.
    const reader = scopeDeps(deps, ['table:read'], 'route group demo');
    await expect(reader.store.scan({})).rejects.toThrow(/'table:scan'/);
  });

  it('records every use when asked, declared or not', async () => {
    const { deps } = fakeDeps();
    const used: PortUse[] = [];
    const scoped = scopeDeps(deps, ['table:read', 'dns'], 'recorded', { onUse: (use) => used.push(use) });
    await scoped.store.get(key);
    await scoped.dns.resolve('example.com', 'MX');
    expect(() => scoped.blobs.get('k')).toThrow(UndeclaredPortError);
    expect(used).toEqual(['table:read', 'dns', 'blobs']);
  });

  it('scopes by the manifest entry of a function', async () => {
    const { deps } = fakeDeps();
    const config = declaredDeps(deps, 'http', 'config');
    expect(() => config.store.get(key)).toThrow(/http function config .*'table:read'/);
    expect(() => declaredDeps(deps, 'http', 'nope')).toThrow(/No http function named nope/);
  });
});
