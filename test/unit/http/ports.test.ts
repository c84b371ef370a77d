/** `scopeDeps`: a function's code gets the ports it declares, and a clear refusal for the others. */
import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it, vi } from 'vitest';
import { literalSecret } from '../../../shared/config/env';
import { declaredDeps, scopeDeps, UndeclaredPortError } from '../../../shared/http/ports';
import type { PortUse } from '../../../shared/manifest';
import type { Deps } from '../../../shared/ports';

function fakeDeps() {
  const sent: string[] = [];
  const deps = {
    db: { send: vi.fn(async (cmd: object) => void sent.push(cmd.constructor.name)) },
    tableName: 't',
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
      'db',
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

  it('tells table reads from writes by the command', async () => {
    const { deps, sent } = fakeDeps();
    const reader = scopeDeps(deps, ['table:read'], 'reader');
    await reader.db.send(new GetCommand({ TableName: 't', Key: { pk: 'a', sk: 'b' } }));
    await reader.db.send(new QueryCommand({ TableName: 't' }));
    expect(() => reader.db.send(new PutCommand({ TableName: 't', Item: { pk: 'a', sk: 'b' } }))).toThrow(
      /does not declare 'table:write'/,
    );
    expect(sent).toEqual(['GetCommand', 'QueryCommand']);
    const nothing = scopeDeps(deps, [], 'config');
    expect(() => nothing.db.send(new GetCommand({ TableName: 't', Key: {} }))).toThrow(/'table:read'/);
  });

  it('lets the background check read SES identities but not change them', async () => {
    const { deps } = fakeDeps();
    const check = scopeDeps(deps, ['check-sender-domains'], 'schedule');
    await check.emailIdentities.getDomainIdentity('example.com');
    expect(() => check.emailIdentities.deleteDomainIdentity('example.com')).toThrow(
      /'manage-sender-domains'/,
    );
    expect(() => check.dnsZones.findZone('example.com')).toThrow(/'manage-sender-domains'/);
  });

  it('records every use when asked, declared or not', async () => {
    const { deps } = fakeDeps();
    const used: PortUse[] = [];
    const scoped = scopeDeps(deps, ['table:read', 'dns'], 'recorded', { onUse: (use) => used.push(use) });
    await scoped.db.send(new GetCommand({ TableName: 't', Key: {} }));
    await scoped.dns.resolve('example.com', 'MX');
    expect(() => scoped.blobs.get('k')).toThrow(UndeclaredPortError);
    expect(used).toEqual(['table:read', 'dns', 'blobs']);
  });

  it('scopes by the manifest entry of a function', async () => {
    const { deps } = fakeDeps();
    const config = declaredDeps(deps, 'http', 'config');
    expect(() => config.db.send(new GetCommand({ TableName: 't', Key: {} }))).toThrow(
      /http function config .*'table:read'/,
    );
    expect(() => declaredDeps(deps, 'http', 'nope')).toThrow(/No http function named nope/);
  });
});
