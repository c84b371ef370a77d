/**
 * `POST /contacts/import` with a member's session and X-Project-Id, as every project route takes
 * it (docs/accounts.md): the upload's authorizer checks the session, the membership and the
 * project, and the job belongs to the project X-Project-Id names. API Gateway answers every
 * authorizer denial with one status, so a non-member (or an unknown project) gets 403 NOT_FOUND
 * here where other routes answer 404; no credentials at all is 401.
 */
import { describe, expect, it } from 'vitest';
import { uniqueEmail } from './helpers/contacts';
import { multipart } from './helpers/imports';
import { useLocalRuntime } from './helpers/local';

const rt = useLocalRuntime();
const PASSWORD = 'correct horse battery';

async function signup(tag: string) {
  const email = uniqueEmail(tag);
  const res = await rt.api('POST', '/auth/signup', { key: null, body: { email, password: PASSWORD } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const cookie = /sesame_session=[^;]*/.exec(res.headers['set-cookie'] ?? '')![0];
  return { cookie, projectId: res.body.project.id as string };
}

async function uploadAs(headers: Record<string, string>, csv: string) {
  const { body, contentType } = await multipart(csv);
  return rt.api('POST', '/contacts/import', {
    key: null,
    raw: body,
    headers: { ...headers, 'content-type': contentType },
  });
}

/** How many of `email` the project has: with a member's session, or the seeded project's key. */
async function found(email: string, as?: { cookie: string; projectId: string }): Promise<number> {
  const options = as ? { key: null, headers: { cookie: as.cookie, 'x-project-id': as.projectId } } : {};
  const res = await rt.api('POST', '/contacts/lookup', { ...options, body: { emails: [email] } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.found.length;
}

describe('POST /contacts/import with a session', () => {
  it("imports into the member's project X-Project-Id names", async () => {
    const user = await signup('importer');
    const email = uniqueEmail('imported');
    const res = await uploadAs({ cookie: user.cookie, 'x-project-id': user.projectId }, `email\n${email}\n`);
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    await rt.drain();
    const job = await rt.api('GET', `/contacts/import/${res.body.jobId}`, {
      key: null,
      headers: { cookie: user.cookie, 'x-project-id': user.projectId },
    });
    expect(job.body).toMatchObject({ status: 'completed', imported: 1 });
    // In the user's project, not the seeded one.
    expect(await found(email, user)).toBe(1);
    expect(await found(email)).toBe(0);
  });

  it('refuses a non-member, an unknown project, a missing X-Project-Id, a forged cookie and a cookie without X-Requested-With, creating no job', async () => {
    const owner = await signup('owner');
    const stranger = await signup('stranger');
    const email = uniqueEmail('never');
    for (const [headers, status, code] of [
      [{ cookie: stranger.cookie, 'x-project-id': owner.projectId }, 403, 'NOT_FOUND'],
      [{ cookie: stranger.cookie, 'x-project-id': 'no-such-project' }, 403, 'NOT_FOUND'],
      [{ cookie: stranger.cookie }, 403, 'BAD_REQUEST'],
      [{ cookie: `${stranger.cookie}x`, 'x-project-id': stranger.projectId }, 401, undefined],
      // A member's own project, but without the header a cross-site form cannot send.
      [
        { cookie: owner.cookie, 'x-project-id': owner.projectId, 'x-requested-with': '' },
        403,
        'CSRF_HEADER_MISSING',
      ],
      [{}, 401, undefined],
    ] as const) {
      const res = await uploadAs(headers, `email\n${email}\n`);
      expect(res.status, JSON.stringify(headers)).toBe(status);
      if (code) expect(res.body.error.code, JSON.stringify(headers)).toBe(code);
    }
    await rt.drain();
    expect(await found(email, owner)).toBe(0);
    expect(await found(email, stranger)).toBe(0);
    expect(await found(email)).toBe(0);
  });
});
