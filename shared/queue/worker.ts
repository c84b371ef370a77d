/**
 * SQS worker helper: one record at a time, each validated by a zod schema, failures reported per
 * record (partial batch response) so only they are retried and, after the queue's receive limit,
 * land in its dead-letter queue with the error logged.
 */
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { z } from 'zod';

export function sqsWorker<S extends z.ZodType>(
  schema: S,
  handle: (message: z.output<S>, meta: { messageId: string; receiveCount: number }) => Promise<void>,
) {
  return async (event: SQSEvent, _context?: Context): Promise<SQSBatchResponse> => {
    const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
    for (const record of event.Records) {
      try {
        const parsed = schema.safeParse(JSON.parse(record.body));
        if (!parsed.success) throw new Error(`Invalid message: ${parsed.error.message}`);
        await handle(parsed.data, {
          messageId: record.messageId,
          receiveCount: Number(record.attributes?.ApproximateReceiveCount ?? 1),
        });
      } catch (error) {
        console.error(
          JSON.stringify({
            level: 'error',
            message: 'Queue message failed',
            messageId: record.messageId,
            error: error instanceof Error ? error.message : String(error),
          }),
        );
        batchItemFailures.push({ itemIdentifier: record.messageId });
      }
    }
    return { batchItemFailures };
  };
}
