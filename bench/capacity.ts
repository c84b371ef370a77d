/**
 * Counts DynamoDB request units for everything a DocumentClient sends (in the benchmarks, the
 * client beneath the local runtime's store: `runtime.dynamo.db`), from the engine's own
 * ConsumedCapacity. dynalite reports the table's units only, so index writes are added here: an
 * item written with an index's keys costs that index one more write unit per KB (ALL projection),
 * as DynamoDB bills it. Failed conditional writes report nothing in dynalite; DynamoDB bills them
 * one write unit each, so they are counted from the error.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { table } from '../shared/table';

export interface Units {
  read: number;
  write: number;
}

export function meterCapacity(db: DynamoDBDocumentClient): { units: Units; reset(): Units } {
  const units: Units = { read: 0, write: 0 };
  const indexKeys = table.indexes.map((i) => i.partitionKey);
  db.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as Record<string, unknown>;
      input.ReturnConsumedCapacity = 'TOTAL';
      const item = (input.Item ?? undefined) as Record<string, unknown> | undefined;
      const isWrite = /Put|Update|Delete|BatchWrite/.test(String(context.commandName));
      try {
        const result = await next(args);
        const consumed = (result.output as { ConsumedCapacity?: unknown }).ConsumedCapacity;
        for (const c of (
          [] as { ReadCapacityUnits?: number; WriteCapacityUnits?: number; CapacityUnits?: number }[]
        ).concat((consumed as never) ?? [])) {
          if (isWrite) units.write += c.WriteCapacityUnits ?? c.CapacityUnits ?? 0;
          else units.read += c.ReadCapacityUnits ?? c.CapacityUnits ?? 0;
        }
        if (item) {
          const kb = Math.max(1, Math.ceil(Buffer.byteLength(JSON.stringify(item)) / 1024));
          for (const key of indexKeys) if (item[key] !== undefined) units.write += kb;
        }
        return result;
      } catch (error) {
        if ((error as Error).name === 'ConditionalCheckFailedException') units.write += 1;
        throw error;
      }
    },
    { step: 'initialize', name: 'benchCapacityMeter' },
  );
  return {
    units,
    reset() {
      const snapshot = { ...units };
      units.read = 0;
      units.write = 0;
      return snapshot;
    },
  };
}
