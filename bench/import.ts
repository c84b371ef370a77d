/**
 * `npm run bench:import`: imports a generated CSV of about 5 MB (50,000 rows) into an in-process
 * local runtime through POST /contacts/import, three times, and prints rows per second and the
 * DynamoDB cost per row of the import job:
 *
 * 1. new rows (every email is new);
 * 2. existing rows with changed values (every row merges into its contact);
 * 3. the same file again (every row merges and changes nothing).
 *
 * DynamoDB units come from the shared meter (bench/capacity.ts, as bench:capacity and the others
 * count them: every index entry a write puts, updates or deletes, failed conditions, reads as the
 * engine reports them with DynamoDB's minimum for an empty Query), over the runtime's client, of
 * what the queue workers do (labelled by `labelJobs`); the upload and the polling are not counted.
 *
 * Each run is checked before its figures are printed: the job completed with every row imported
 * (the first run) or updated (the others), and the rows of the first two runs wrote something. A
 * run that did not is FAIL, and the bench exits non-zero. A benchmark, not a test.
 */
import { quietLogger } from '../shared/adapters/local/log';
import { MAX_IMPORT_FILE_BYTES } from '../shared/imports/multipart';
import { startLocal } from '../shared/local/runtime';
import { meterCapacity } from './capacity';
import { labelJobs } from './local';
import { atMost, label, overall, type Verdict } from './verdicts';

const ROWS = Number(process.env.BENCH_ROWS ?? 50_000);

function csv(plan: string): string {
  const lines = ['email,first_name,last_name,company,plan,city,signup,score,vip,zip'];
  for (let i = 0; i < ROWS; i++) {
    lines.push(
      `user${i}@bench.example.com,First${i % 997},Last${i % 991},Company ${i % 300},${plan},City ${i % 50},2024-05-${String((i % 28) + 1).padStart(2, '0')},${(i % 1000) / 10},${i % 2 === 0},${String(i % 100000).padStart(5, '0')}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

async function main() {
  const rt = await startLocal({
    port: 0,
    logger: quietLogger,
    recurringSchedules: false,
    timings: { queueInvocationTimeoutMs: 15 * 60_000 },
    env: { RATE_LIMIT_PER_MINUTE: '100000' },
  });
  const phase = labelJobs(rt);
  const meter = meterCapacity(rt.dynamo.db, { phase: () => phase.getStore() ?? 'call' });
  const runs: Record<string, string | number>[] = [];
  const verdicts: Verdict[] = [];
  const checks: string[] = [];
  try {
    for (const [name, file, expect] of [
      ['new rows', csv('pro'), 'imported'],
      ['existing rows, changed', csv('team'), 'updated'],
      ['existing rows, unchanged', csv('team'), 'updated'],
    ] as const) {
      const bytes = Buffer.byteLength(file);
      if (bytes > MAX_IMPORT_FILE_BYTES)
        throw new Error(`The generated file (${bytes} bytes) is over the 5 MB limit`);
      const form = new FormData();
      form.append('file', new Blob([file], { type: 'text/csv' }), 'bench.csv');
      meter.reset();
      const started = performance.now();
      const res = await fetch(`${rt.url}/contacts/import`, {
        method: 'POST',
        headers: { authorization: `Bearer ${rt.secretKey}` },
        body: form,
      });
      const accepted = (await res.json()) as { jobId: string };
      if (res.status !== 202) throw new Error(`Upload answered ${res.status}: ${JSON.stringify(accepted)}`);
      let job: Record<string, unknown>;
      for (;;) {
        await new Promise((r) => setTimeout(r, 250));
        const poll = await fetch(`${rt.url}/contacts/import/${accepted.jobId}`, {
          headers: { authorization: `Bearer ${rt.secretKey}` },
        });
        job = (await poll.json()) as Record<string, unknown>;
        if (job.status === 'completed' || job.status === 'failed') break;
      }
      const seconds = (performance.now() - started) / 1000;
      // What the job left on the queue (the event tally it armed, ...) is the import's too.
      await rt.queue.drain({ timeoutMs: 60_000 });
      const bill = meter.reset();
      if (job.status !== 'completed') throw new Error(`The import failed: ${JSON.stringify(job.error)}`);
      const rows = Number(job.totalRows);
      const jobs = bill.byPhase.jobs ?? { read: 0, write: 0 };
      const writes = bill.writes.filter((w) => w.phase === 'jobs');
      const index = writes.reduce((n, w) => n + w.indexes.reduce((m, i) => m + i.units, 0), 0);
      // Every row went where the run says; the first two runs must have written (the third may not).
      const done = Number(job[expect]);
      const complete = rows === ROWS && done === ROWS && Number(job.skipped ?? 0) === 0;
      const wrote = atMost({ value: jobs.write / rows, samples: rows }, Number.POSITIVE_INFINITY, {
        zeroIsMissing: name !== 'existing rows, unchanged',
      });
      const verdict = overall([complete ? 'PASS' : 'FAIL', wrote.verdict === 'PASS' ? 'PASS' : 'FAIL']);
      verdicts.push(verdict);
      checks.push(
        `${label(verdict)}  ${name}: ${done} of ${ROWS} rows ${expect}, ${Number(job.skipped ?? 0)} skipped, ${jobs.write} WCU written${wrote.reason ? ` (${wrote.reason})` : ''}`,
      );
      runs.push({
        run: name,
        'file MB': (bytes / 1024 / 1024).toFixed(2),
        rows,
        imported: Number(job.imported),
        updated: Number(job.updated),
        seconds: seconds.toFixed(1),
        'rows/s': Math.round(rows / seconds),
        'item writes/row': (writes.length / rows).toFixed(3),
        'table WCU/row': ((jobs.write - index) / rows).toFixed(3),
        'GSI WCU/row': (index / rows).toFixed(3),
        'total WCU/row': (jobs.write / rows).toFixed(3),
        'RCU/row': (jobs.read / rows).toFixed(3),
      });
      console.log(`${name}: ${rows} rows in ${seconds.toFixed(1)} s`);
    }
  } finally {
    await rt.stop();
  }
  console.log(
    `\nImport benchmark (local runtime, dynalite; node ${process.version}, ${ROWS} rows; units: bench/capacity.ts)\n`,
  );
  console.table(runs);
  for (const line of checks) console.log(line);
  const verdict = overall(verdicts);
  console.log(`bench:import: ${verdict}`);
  if (verdict !== 'PASS') process.exitCode = 1;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
