/** The DynamoDB document client as every composition root configures it. */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * Wraps a low-level client: optional fields left `undefined` are dropped rather than rejected,
 * and class instances (such as `Date`) are refused instead of being silently turned into maps,
 * so repositories must convert them at the boundary.
 */
export function createDocumentClient(client: DynamoDBClient): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  });
}
