/** The store over DynamoDB, with its client (see aws-wiring/dynamo.ts, `dynamoStore`). */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createDocumentClient } from '../../adapters/aws/dynamo';
import { createStore } from '../../store/dynamo';
import type { Store } from '../../store/store';
import type { AwsSettings } from '../aws';

export function dynamoStore({ env }: AwsSettings): Store {
  // Region and credentials come from the Lambda environment through the SDK's default chain.
  return createStore(createDocumentClient(new DynamoDBClient({})), env.TABLE_NAME);
}
