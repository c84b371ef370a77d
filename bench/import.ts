/**
 * `npm run bench:import`: imports a generated CSV of about 5 MB (50,000 rows) into an in-process
 * local runtime through POST /contacts/import, three times, and prints rows per second and the
 * DynamoDB cost per row of the import job:
 *
 * 1. new rows (every email is new);
 * 2. existing rows with changed values (every row merges into its contact);
 * 3. the same file again (every row merges and changes nothing).
 *
 * Write units come from ReturnConsumedCapacity on every write of the jobs worker, whose store
 * sends through a metering client (the upload and the polling are not counted). dynalite reports table capacity only, so the two global secondary indexes are added
 * here: each item written with gsi1/gsi2 keys costs its size (in 1 KB units) once per index, as on
 * DynamoDB. Reads are reported the same way (strongly consistent units). A benchmark, not a test.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Context, SQSEvent } from 'aws-lambda';
import { createHandler as jobsHandler } from '../functions/queues/jobs';
import { quietLogger } from '../shared/adapters/local/log';
import { MAX_IMPORT_FILE_BYTES } from '../shared/imports/multipart';
import { startLocal } from '../shared/local/runtime';
import type { Deps } from '../shared/ports';
import { createStore } from '../shared/store/dynamo';
import type { Store } from '../shared/store/store';
import { table } from '../shared/table';

const ROWS = Number(process.env.BENCH_ROWS ?? 50_000);

interface Meter {
  writeRequests: number;
  itemWrites: number;
  tableWriteUnits: number;
  indexWriteUnits: number;
  readUnits: number;
}

const meter: Meter = {
  writeRequests: 0,
  itemWrites: 0,
  tableWriteUnits: 0,
  indexWriteUnits: 0,
  readUnits: 0,
};
const reset = () =>
  Object.assign(meter, {
    writeRequests: 0,
    itemWrites: 0,
    tableWriteUnits: 0,
    indexWriteUnits: 0,
    readUnits: 0,
  });

type Command = { constructor: { name: string }; input: Record<string, unknown> };
type Capacity = { CapacityUnits?: number };

const WRITES = new Set(['PutCommand', 'UpdateCommand', 'DeleteCommand', 'BatchWriteCommand']);
const READS = new Set(['GetCommand', 'BatchGetCommand', 'QueryCommand']);
const indexKeys = table.indexes.map((i) => i.partitionKey);
/** DynamoDB item size, approximated by the JSON size of names and values (close for flat items). */
const units = (item: Record<string, unknown>) =>
  Math.max(1, Math.ceil(Buffer.byteLength(JSON.stringify(item)) / 1024));

function gsiUnits(item: Record<string, unknown> | undefined): number {
  if (!item) return 0;
  return indexKeys.filter((k) => item[k] !== undefined).length * units(item);
}

/** `db`, counting what every command consumed. */
function metered(db: DynamoDBDocumentClient): DynamoDBDocumentClient {
  return new Proxy(db, {
    get(target, prop, receiver) {
      if (prop !== 'send') return Reflect.get(target, prop, receiver);
      return async (cmd: Command) => {
        const name = cmd.constructor.name;
        const measured = WRITES.has(name) || READS.has(name);
        if (measured) cmd.input.ReturnConsumedCapacity = 'TOTAL';
        const out = (await target.send(cmd as never)) as { ConsumedCapacity?: Capacity | Capacity[] };
        const consumed = ([] as Capacity[])
          .concat(out.ConsumedCapacity ?? [])
          .reduce((n, c) => n + (c.CapacityUnits ?? 0), 0);
        if (WRITES.has(name)) {
          meter.writeRequests++;
          meter.tableWriteUnits += consumed;
          if (name === 'BatchWriteCommand') {
            const requests = Object.values(
              cmd.input.RequestItems as Record<string, { PutRequest?: { Item: Record<string, unknown> } }[]>,
            ).flat();
            meter.itemWrites += requests.length;
            for (const r of requests) meter.indexWriteUnits += gsiUnits(r.PutRequest?.Item);
          } else {
            meter.itemWrites++;
            if (name === 'PutCommand')
              meter.indexWriteUnits += gsiUnits(cmd.input.Item as Record<string, unknown>);
          }
        } else if (READS.has(name)) {
          meter.readUnits += consumed;
        }
        return out;
      };
    },
  });
}

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
  // The worker's store: the runtime's table through the metering client, made once it has started.
  let workerStore: Store | undefined;
  const rt = await startLocal({
    port: 0,
    logger: quietLogger,
    recurringSchedules: false,
    timings: { queueInvocationTimeoutMs: 15 * 60_000 },
    env: { RATE_LIMIT_PER_MINUTE: '100000' },
    handlers: {
      queues: {
        jobs: (deps: Deps) => {
          let worker: ReturnType<typeof jobsHandler> | undefined;
          return (event: SQSEvent, context: Context) => {
            if (!workerStore) throw new Error('The jobs worker ran before the runtime started');
            worker ??= jobsHandler({ ...deps, store: workerStore });
            return worker(event, context);
          };
        },
      },
    },
  });
  workerStore = createStore(metered(rt.dynamo.db), rt.dynamo.tableName);
  const runs: Record<string, string | number>[] = [];
  try {
    for (const [label, file] of [
      ['new rows', csv('pro')],
      ['existing rows, changed', csv('team')],
      ['existing rows, unchanged', csv('team')],
    ] as const) {
      const bytes = Buffer.byteLength(file);
      if (bytes > MAX_IMPORT_FILE_BYTES)
        throw new Error(`The generated file (${bytes} bytes) is over the 5 MB limit`);
      const form = new FormData();
      form.append('file', new Blob([file], { type: 'text/csv' }), 'bench.csv');
      reset();
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
      if (job.status !== 'completed') throw new Error(`The import failed: ${JSON.stringify(job.error)}`);
      const rows = Number(job.totalRows);
      runs.push({
        run: label,
        'file MB': (bytes / 1024 / 1024).toFixed(2),
        rows,
        imported: Number(job.imported),
        updated: Number(job.updated),
        seconds: seconds.toFixed(1),
        'rows/s': Math.round(rows / seconds),
        'item writes/row': (meter.itemWrites / rows).toFixed(3),
        'write requests/row': (meter.writeRequests / rows).toFixed(3),
        'table WCU/row': (meter.tableWriteUnits / rows).toFixed(3),
        'GSI WCU/row': (meter.indexWriteUnits / rows).toFixed(3),
        'total WCU/row': ((meter.tableWriteUnits + meter.indexWriteUnits) / rows).toFixed(3),
        'RCU/row': (meter.readUnits / rows).toFixed(3),
      });
      console.log(`${label}: ${rows} rows in ${seconds.toFixed(1)} s`);
    }
  } finally {
    await rt.stop();
  }
  console.log(`\nImport benchmark (local runtime, dynalite; node ${process.version}, ${ROWS} rows)\n`);
  console.table(runs);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
