/**
 * The local mail sink of a runtime with a data folder (as `npm start` runs): mail sent through the
 * API is kept on disk, answered the same by `/_local/emails` and the inbox, kept across a restart,
 * and held in memory as index entries only.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { quietLogger } from '../../shared/adapters/local/log';
import { fastTimings, type LocalRuntime, startLocal } from '../../shared/local/runtime';
import { callApi } from './helpers/local';
import { pollUntil } from './helpers/wait';

describe('the mail sink with a data folder', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sesame-mail-disk-'));
  let running: LocalRuntime | undefined;
  const start = async () => {
    running = await startLocal({ dataDir, logger: quietLogger, timings: fastTimings });
    return running;
  };
  afterAll(async () => {
    await running?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  // A body of about 30 KB whose last word is far past any preview.
  const filler = 'the quick brown fox jumps over the lazy dog '.repeat(700);
  const body = `<p>Hello</p><p>${filler}</p><p>zebracorn</p>`;

  it('keeps sent mail on disk, holds index entries only, and has it all after a restart', async () => {
    const first = await start();
    const from = `news@${first.senderDomain}`;
    const sent: string[] = [];
    for (const to of ['ann@example.org', 'bob@example.org', 'cy@example.org']) {
      const res = await callApi(first, 'POST', '/v1/send', {
        body: { to, from, subject: `Hello ${to}`, body },
      });
      expect(res.status).toBe(200);
      sent.push(to);
    }
    const listed = await pollUntil('three mails in the sink', async () => {
      const res = await callApi(first, 'GET', '/_local/emails', { key: null });
      return res.body.length === 3 ? res.body : undefined;
    });
    expect(listed[0].html).toContain('zebracorn');
    const memory = first.mailSink.memory();
    expect(memory).toMatchObject({ messages: 3, rawBytes: 0, parsed: 0 });
    expect(memory.indexBytes / memory.messages).toBeLessThan(1024);
    await first.stop();
    running = undefined;

    const second = await start();
    const emails = await callApi(second, 'GET', '/_local/emails', { key: null });
    expect(emails.body.map((m: { to: string[] }) => m.to[0]).sort()).toEqual(sent);
    const one = emails.body.find((m: { to: string[] }) => m.to[0] === 'bob@example.org');
    expect(one).toMatchObject({ subject: 'Hello bob@example.org', from });
    expect(one.html).toContain('zebracorn');

    const detail = await callApi(second, 'GET', `/_local/emails/${encodeURIComponent(one.id)}`, {
      key: null,
    });
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({ id: one.id, subject: 'Hello bob@example.org' });
    const raw = await callApi(second, 'GET', `/_local/emails/${encodeURIComponent(one.id)}/raw`, {
      key: null,
    });
    expect(raw.status).toBe(200);
    expect(raw.headers['content-type']).toBe('message/rfc822');
    expect(raw.text).toContain('Subject: Hello bob@example.org');

    // The inbox: the list from the index entries, a search for a word only deep in the body
    // (read from disk), a field search, and the message view.
    const inbox = await callApi(second, 'GET', '/_local/mail/messages', { key: null });
    expect(inbox.body).toMatchObject({ matched: 3, total: 3 });
    expect(inbox.body.messages[0].snippet).toMatch(/^Hello the quick brown fox/);
    const deep = await callApi(second, 'GET', '/_local/mail/messages', {
      key: null,
      query: { q: 'zebracorn' },
    });
    expect(deep.body.matched).toBe(3);
    const field = await callApi(second, 'GET', '/_local/mail/messages', {
      key: null,
      query: { q: 'to:bob zebracorn' },
    });
    expect(field.body.messages.map((m: { id: string }) => m.id)).toEqual([one.id]);
    const none = await callApi(second, 'GET', '/_local/mail/messages', {
      key: null,
      query: { q: 'unicornzebra' },
    });
    expect(none.body).toMatchObject({ matched: 0, total: 3 });
    const view = await callApi(second, 'GET', `/_local/mail/messages/${encodeURIComponent(one.id)}`, {
      key: null,
    });
    expect(view.status).toBe(200);
    expect(view.body.text).toContain('zebracorn');
    expect(second.mailSink.memory()).toMatchObject({ messages: 3, rawBytes: 0, parsed: 0 });
  });
});
