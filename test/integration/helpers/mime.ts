/**
 * Reading sent mail back the way a mail client would: the raw MIME from the local runtime's
 * `/_local/emails/{id}/raw`, parsed with postal-mime (attachment bytes included).
 */
import PostalMime, { type Email } from 'postal-mime';
import { expect } from 'vitest';
import { getEmailRecord } from '../../../shared/sending/repository';
import type { LocalTestRuntime } from './local';

export interface RawMail {
  /** The MIME source as the provider received it. */
  readonly source: string;
  readonly parsed: Email;
  /** The HTML part as authored: the line break MIME encoding adds at its end removed, CRLF as LF. */
  readonly html: string | undefined;
  /** First value of a header, by case-insensitive name. */
  header(name: string): string | undefined;
}

export async function rawMail(rt: LocalTestRuntime, messageId: string): Promise<RawMail> {
  const res = await fetch(`${rt.url}/_local/emails/${encodeURIComponent(messageId)}/raw`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('message/rfc822');
  const bytes = new Uint8Array(await res.arrayBuffer());
  const parsed = await PostalMime.parse(bytes);
  return {
    source: Buffer.from(bytes).toString('utf8'),
    parsed,
    html: parsed.html?.replace(/\r\n/g, '\n').replace(/\n$/, ''),
    header: (name) => parsed.headers.find((h) => h.key === name.toLowerCase())?.value,
  };
}

/** The one message the sink holds for `to`, with its raw form. */
export async function onlyMailTo(rt: LocalTestRuntime, to: string) {
  const mails = await rt.mails({ to });
  expect(mails, `mails to ${to}`).toHaveLength(1);
  return { mail: mails[0]!, raw: await rawMail(rt, mails[0]!.id) };
}

export const emailRecord = (rt: LocalTestRuntime, emailId: string) =>
  getEmailRecord(rt.deps, rt.projectId, emailId);
