/**
 * The mail sink with a data folder keeps its messages on disk: memory holds one small index entry
 * per message (no raw MIME, no parsed bodies), the bodies are read from the `.eml` on demand, and
 * a new sink on the same folder (a restart) has every message, its list entries from the index.
 */
import { appendFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MailSink, PREVIEW_CHARS } from '../../../shared/adapters/local/mail-sink';
import { silent, tempDir } from './helpers';

/** A message of about `kb` KB: a text and an HTML part, the word `needle` at the very end of the text. */
const big = (to: string, subject: string, kb = 30) => {
  const filler = 'lorem ipsum dolor sit amet '.repeat(Math.ceil((kb * 1024) / 2 / 27));
  return new TextEncoder().encode(
    [
      'From: Sesame Test <hello@example.com>',
      `To: ${to}`,
      'Cc: copy@example.org',
      `Subject: ${subject}`,
      'MIME-Version: 1.0',
      'Content-Type: multipart/alternative; boundary="b1"',
      '',
      '--b1',
      'Content-Type: text/plain; charset=utf-8',
      '',
      `Hello ${to}. ${filler} needle`,
      '--b1',
      'Content-Type: text/html; charset=utf-8',
      '',
      `<p>Hello ${to}.</p><p>${filler}</p>`,
      '--b1--',
      '',
    ].join('\r\n'),
  );
};

const N = 40;

describe('MailSink with a data folder', () => {
  it('holds an index entry of a few hundred bytes per message, no raw MIME and no parsed bodies', async () => {
    const dataDir = tempDir('sesame-mail-');
    const sink = new MailSink({ dataDir, logger: silent });
    let rawBytes = 0;
    for (let i = 0; i < N; i++) {
      const raw = big(`user${i}@example.org`, `Message ${i}`);
      rawBytes += raw.byteLength;
      await sink.sendRaw({
        from: 'hello@example.com',
        to: [`user${i}@example.org`],
        raw,
        tags: { n: String(i) },
      });
    }
    expect(rawBytes / N).toBeGreaterThan(30_000);
    // Reading every message (list, get, raw) leaves nothing behind in memory.
    const listed = await sink.list();
    expect(listed).toHaveLength(N);
    expect(listed[0]!.text).toContain('needle');
    await sink.get(listed[3]!.id);
    sink.raw(listed[4]!.id);
    const memory = sink.memory();
    expect(memory).toMatchObject({ messages: N, rawBytes: 0, parsed: 0 });
    expect(memory.indexBytes / N).toBeLessThan(1024);

    const [entry] = await sink.indexEntries();
    expect(entry).toEqual({
      id: listed[0]!.id,
      from: 'hello@example.com',
      to: [`user${N - 1}@example.org`],
      tags: { n: String(N - 1) },
      createdAt: listed[0]!.createdAt,
      subject: `Message ${N - 1}`,
      size: expect.any(Number),
      headers: {
        from: 'Sesame Test <hello@example.com>',
        to: `user${N - 1}@example.org`,
        cc: 'copy@example.org',
      },
      preview: expect.stringMatching(/^Hello user39@example\.org\. lorem ipsum/),
      attachments: 0,
    });
    expect(entry!.preview.length).toBe(PREVIEW_CHARS);
    expect(entry!.size).toBeGreaterThan(30_000);
  });

  it('reads the bodies from disk on demand, not from memory', async () => {
    const dataDir = tempDir('sesame-mail-');
    const sink = new MailSink({ dataDir, logger: silent });
    const { messageId } = await sink.sendRaw({
      from: 'hello@example.com',
      to: ['ann@example.org'],
      raw: big('ann@example.org', 'First', 2),
    });
    expect((await sink.get(messageId))?.subject).toBe('First');
    // The file changed under the sink: what it answers is the file's.
    const file = join(dataDir, 'mail', `${messageId}.eml`);
    writeFileSync(file, big('ann@example.org', 'Rewritten', 2));
    expect((await sink.get(messageId))?.subject).toBe('Rewritten');
    expect(new TextDecoder().decode(sink.raw(messageId))).toContain('Subject: Rewritten');
  });

  it('keeps every message across a restart, its list entry from the index alone', async () => {
    const dataDir = tempDir('sesame-mail-');
    const first = new MailSink({ dataDir, logger: silent });
    const ids: string[] = [];
    for (const to of ['a@example.org', 'b@example.org'])
      ids.push(
        (await first.sendRaw({ from: 'f@example.com', to: [to], raw: big(to, `To ${to}`, 4) })).messageId,
      );

    const second = new MailSink({ dataDir, logger: silent });
    expect(second.size).toBe(2);
    expect((await second.get(ids[0]!))?.text).toContain('needle');
    // The list entries come from the index: with the files gone they are still whole.
    for (const id of ids) rmSync(join(dataDir, 'mail', `${id}.eml`));
    const entries = await second.indexEntries();
    expect(entries.map((e) => [e.subject, e.headers.to])).toEqual([
      ['To b@example.org', 'b@example.org'],
      ['To a@example.org', 'a@example.org'],
    ]);
    expect(second.memory()).toMatchObject({ messages: 2, rawBytes: 0, parsed: 0 });
  });

  it('gives an index line of the envelope alone (an older data folder) its entry from the .eml', async () => {
    const dataDir = tempDir('sesame-mail-');
    const first = new MailSink({ dataDir, logger: silent });
    const { messageId } = await first.sendRaw({
      from: 'f@example.com',
      to: ['old@example.org'],
      raw: big('old@example.org', 'From before', 2),
    });
    const index = join(dataDir, 'mail', 'index.jsonl');
    const line = JSON.parse(readFileSync(index, 'utf8').trim());
    const { id, from, to, tags, createdAt } = line;
    writeFileSync(index, '');
    appendFileSync(index, `${JSON.stringify({ id, from, to, tags, createdAt })}\n`);

    const second = new MailSink({ dataDir, logger: silent });
    const [entry] = await second.indexEntries();
    expect(entry).toMatchObject({
      id: messageId,
      subject: 'From before',
      headers: { cc: 'copy@example.org' },
    });
    expect(entry!.size).toBe(line.size);
  });
});
