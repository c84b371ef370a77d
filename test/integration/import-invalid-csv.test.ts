/**
 * Every csv-parse error in an uploaded file ends the import `failed` with INVALID_CSV naming the
 * line, on the first attempt: the file will not parse any better on a retry, so the jobs queue
 * receives the message once and nothing goes to its dead letters. Through HTTP against the local
 * runtime, counting the jobs queue's receives per import.
 */
import { describe, expect, it } from 'vitest';
import { jobs, normalizers } from '../../functions/queues/jobs';
import { jobsWorker } from '../../shared/jobs/registry';
import type { Deps } from '../../shared/ports';
import { upload } from './helpers/imports';
import { type Json, useLocalRuntime } from './helpers/local';

/** Receives of the jobs queue, by the message body (an import's names its job id). */
const receives: string[] = [];

const rt = useLocalRuntime({
  handlers: {
    queues: {
      jobs: (deps: Deps) => {
        const worker = jobsWorker(deps, jobs, normalizers);
        return (event: Parameters<typeof worker>[0], context: never) => {
          for (const r of event.Records) receives.push(r.body);
          return worker(event, context);
        };
      },
    },
  },
});

const MALFORMED: { name: string; csv: string; line: number; says: string }[] = [
  {
    name: 'a quote inside an unquoted field',
    csv: 'email,name\nok@badcsv.test,Ann\nquote@badcsv.test,a"b\n',
    line: 3,
    says: 'quote inside an unquoted field',
  },
  {
    name: 'an unclosed quote (CRLF line endings)',
    csv: 'email,note\r\nok@badcsv.test,x\r\nopen@badcsv.test,"never closed\r\nlast@badcsv.test,y\r\n',
    line: 3,
    says: 'never closed',
  },
  {
    name: 'text after a closing quote',
    csv: 'email,note\nclosing@badcsv.test,"a"b\n',
    line: 2,
    says: 'closing quote is followed',
  },
  {
    name: 'a quoted email followed by text, after blank lines and a multi-line field',
    csv: 'email,note\n\nmulti@badcsv.test,"two\nlines"\n"after@badcsv.test" x,y\n',
    line: 5,
    says: 'closing quote is followed',
  },
  {
    name: 'a quote inside an unquoted header cell, after a byte-order mark',
    csv: '\uFEFFemail,na"me\nbom@badcsv.test,x\n',
    line: 1,
    says: 'quote inside an unquoted field',
  },
];

describe('a CSV that csv-parse refuses', () => {
  for (const c of MALFORMED) {
    it(`fails the import with INVALID_CSV naming line ${c.line}, once and without a dead letter: ${c.name}`, async () => {
      const deadBefore = rt.queue.deadLetters('jobs').length;
      const res = await upload(rt, c.csv);
      expect(res.status, res.text).toBe(202);
      await rt.drain({ timeoutMs: 20_000 });
      const job: Json = (await rt.api('GET', `/contacts/import/${res.body.jobId}`)).body;
      expect(job).toMatchObject({ status: 'failed', imported: 0, error: { code: 'INVALID_CSV' } });
      expect(job.error.message).toContain(`at line ${c.line}:`);
      expect(job.error.message).toContain(c.says);
      expect(receives.filter((body) => body.includes(res.body.jobId))).toHaveLength(1);
      expect(rt.queue.deadLetters('jobs')).toHaveLength(deadBefore);
      const contacts = await rt.api('GET', '/contacts', { query: { search: 'badcsv.test' } });
      expect(contacts.body.total).toBe(0);
    });
  }
});
