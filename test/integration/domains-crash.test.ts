/**
 * Sender domains across a crash between dependent writes: what is left must be ignored by reads
 * and repaired by the next write, through the public API.
 */
import { describe, expect, it } from 'vitest';
import { getClaim } from '../../shared/domains/repository';
import { addDomain, removeDomain } from '../../shared/domains/service';
import { createProject } from '../../shared/projects/repository';
import { useZoneFile } from './helpers/dns';
import { crashingAt, type StoreCall } from './helpers/faults';
import { useLocalRuntime } from './helpers/local';

const clock = { offsetMs: 0, now: () => new Date(Date.now() + clock.offsetMs) };
// An empty zone file: DNS answers nothing, and nothing asks the network.
const rt = useLocalRuntime({ clock, dnsFile: useZoneFile() });

/** The write of the domain item itself (after the claim, the pointer and the SES identity). */
const domainPut = (name: string) => (call: StoreCall) =>
  call.op === 'put' && call.key?.sk === `DOMAIN#${name}`;

const names = async (key?: string, projectId = rt.projectId) =>
  ((await rt.api('GET', `/domains/project/${projectId}`, { key })).body as { domain: string }[]).map(
    (d) => d.domain,
  );

describe('adding a domain crashes after SES, before the domain is stored', () => {
  it('shows nothing; the retry succeeds, and deleting it then deletes the identity', async () => {
    await expect(
      addDomain(crashingAt(rt.deps, domainPut('crash-one.io')), rt.projectId, {
        domain: 'crash-one.io',
        createRecords: false,
      }),
    ).rejects.toThrow('simulated crash');
    expect(await names()).not.toContain('crash-one.io');
    // SES already holds the identity the crashed attempt created.
    expect(await rt.deps.emailIdentities.getDomainIdentity('crash-one.io')).toBeDefined();

    const retry = await rt.api('POST', '/domains', { body: { domain: 'crash-one.io' } });
    expect(retry.status).toBe(201);
    expect(await names()).toContain('crash-one.io');
    // The claim remembered that Sesame created the identity, so delete removes it.
    expect((await rt.api('DELETE', `/domains/${retry.body.id}`)).status).toBe(200);
    expect(await rt.deps.emailIdentities.getDomainIdentity('crash-one.io')).toBeUndefined();
  });

  it('blocks other projects only until the claim is stale', async () => {
    await expect(
      addDomain(crashingAt(rt.deps, domainPut('crash-two.io')), rt.projectId, {
        domain: 'crash-two.io',
        createRecords: false,
      }),
    ).rejects.toThrow('simulated crash');
    const other = await createProject(rt.deps, { name: 'other' });
    const early = await rt.api('POST', '/domains', {
      body: { domain: 'crash-two.io' },
      key: other.secretKey,
    });
    expect(early.status).toBe(409);
    expect(early.body.error.code).toBe('DOMAIN_IN_USE');

    clock.offsetMs = 61_000;
    try {
      const later = await rt.api('POST', '/domains', {
        body: { domain: 'crash-two.io' },
        key: other.secretKey,
      });
      expect(later.status).toBe(201);
      expect(await names(other.secretKey, other.project.id)).toEqual(['crash-two.io']);
      expect((await getClaim(rt.deps, 'crash-two.io'))?.projectId).toBe(other.project.id);
      // Now the crashed project is the one refused, and nothing of it shows.
      const back = await rt.api('POST', '/domains', { body: { domain: 'crash-two.io' } });
      expect(back.status).toBe(409);
      expect(await names()).not.toContain('crash-two.io');
    } finally {
      clock.offsetMs = 0;
    }
  });
});

describe('deleting a domain crashes after the domain item is gone', () => {
  it('reads as deleted, and the name can be added again at once', async () => {
    const added = await rt.api('POST', '/domains', { body: { domain: 'crash-three.io' } });
    expect(added.status).toBe(201);
    const id = added.body.id as string;
    const claimDelete = (call: StoreCall) => call.op === 'delete' && call.key?.pk === 'DOMAIN#crash-three.io';
    await expect(removeDomain(crashingAt(rt.deps, claimDelete), rt.projectId, id)).rejects.toThrow(
      'simulated crash',
    );

    expect((await rt.api('GET', `/domains/${id}/verify`)).status).toBe(404);
    expect((await rt.api('DELETE', `/domains/${id}`)).status).toBe(404);
    expect(await names()).not.toContain('crash-three.io');
    const again = await rt.api('POST', '/domains', { body: { domain: 'crash-three.io' } });
    expect(again.status).toBe(201);
    expect(again.body.id).not.toBe(id);
    // The old id's pointer is left behind, and still answers 404.
    expect((await rt.api('GET', `/domains/${id}/verify`)).status).toBe(404);
    expect((await rt.api('GET', `/domains/${again.body.id}/verify`)).status).toBe(200);
  });
});
