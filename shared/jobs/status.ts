/** Job-item state shared by the import and bulk jobs. */
import type { Deps } from '../ports';
import { conditionalUpdate } from '../store/dynamo';

/** Ends a job that cannot go on; a job that already ended keeps its end. */
export async function failJobItem(
  deps: Pick<Deps, 'db' | 'tableName'>,
  key: { pk: string; sk: string },
  error: { code: string; message: string },
  at: string,
): Promise<void> {
  await conditionalUpdate(deps, {
    Key: key,
    UpdateExpression: 'SET #status = :failed, #error = :error, completedAt = :at',
    ConditionExpression: '#status IN (:queued, :processing)',
    ExpressionAttributeNames: { '#status': 'status', '#error': 'error' },
    ExpressionAttributeValues: {
      ':failed': 'failed',
      ':error': error,
      ':at': at,
      ':queued': 'queued',
      ':processing': 'processing',
    },
  });
}
