/**
 * Background jobs. Every kind of background work runs on the one `jobs` queue (see the README,
 * "Why one queue"): a job kind is a `type`, a zod schema for its message, and a `run` function.
 * Each domain module exports its job definitions; `functions/queues/jobs` lists them all.
 *
 * Messages that arrive in other shapes (an S3 event notification, an SNS envelope) are turned
 * into job messages by `normalizers` before validation.
 */
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import * as z from 'zod';
import type { Deps } from '../ports';

export interface JobMeta {
  readonly messageId: string;
  readonly receiveCount: number;
}

export interface JobDef<T extends { type: string } = { type: string }> {
  readonly type: T['type'];
  readonly schema: z.ZodType<T>;
  run(deps: Deps, message: T, meta: JobMeta): Promise<void>;
}

/** Helps type inference: `defineJob({type, schema, run})`. */
export function defineJob<T extends { type: string }>(def: JobDef<T>): JobDef<T> {
  return def;
}

/** Turns a foreign message body into zero or more job messages; undefined when it does not apply. */
export type Normalizer = (body: unknown) => { type: string }[] | undefined;

const envelope = z.object({ type: z.string().min(1) }).passthrough();

export function jobsWorker(deps: Deps, defs: readonly JobDef[], normalizers: readonly Normalizer[] = []) {
  const byType = new Map(defs.map((d) => [d.type, d]));
  if (byType.size !== defs.length) throw new Error('Two job definitions share a type');

  return async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
    for (const record of event.Records) {
      const meta = {
        messageId: record.messageId,
        receiveCount: Number(record.attributes?.ApproximateReceiveCount ?? 1),
      };
      try {
        const body: unknown = JSON.parse(record.body);
        const messages = normalizers.map((n) => n(body)).find((m) => m !== undefined) ?? [body];
        for (const raw of messages) {
          const head = envelope.safeParse(raw);
          if (!head.success) throw new Error('Message has no type');
          const def = byType.get(head.data.type);
          if (!def) throw new Error(`Unknown job type ${head.data.type}`);
          const parsed = def.schema.safeParse(raw);
          if (!parsed.success) throw new Error(`Invalid ${def.type} message: ${parsed.error.message}`);
          await def.run(deps, parsed.data, meta);
        }
      } catch (error) {
        console.error(
          JSON.stringify({
            level: 'error',
            message: 'Job failed',
            messageId: record.messageId,
            receiveCount: meta.receiveCount,
            error: error instanceof Error ? error.message : String(error),
          }),
        );
        batchItemFailures.push({ itemIdentifier: record.messageId });
      }
    }
    return { batchItemFailures };
  };
}
