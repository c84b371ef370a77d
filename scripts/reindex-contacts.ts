/**
 * One-off, after the deploy that moved the contact lists to the keys-only indexes `gsi3` and
 * `gsi4` (docs/deploy.md, "Table indexes"): gives every live contact written before it its entries
 * in them, a Scan of the table page by page (it reads the whole table once; run it once, off
 * hours for a large table). Safe to run again or beside traffic: each contact is one update
 * conditional on its version, and contacts already listed are skipped.
 *
 *     TABLE_NAME=<the stage's table> AWS_REGION=<region> npx tsx scripts/reindex-contacts.ts
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { reindexContactItem, unindexedContacts } from '../shared/contacts/repository';
import { createStore } from '../shared/store/dynamo';

const tableName = process.env.TABLE_NAME;
if (!tableName) throw new Error('Set TABLE_NAME to the table to reindex');
const store = createStore(DynamoDBDocumentClient.from(new DynamoDBClient({})), tableName);

let cursor = '';
let scanned = 0;
let reindexed = 0;
do {
  const page = await store.scan(unindexedContacts, { limit: 1000, cursor });
  scanned += page.items.length;
  for (const item of page.items) if (await reindexContactItem({ store }, item)) reindexed++;
  cursor = page.cursor;
  console.log(`${reindexed} contacts reindexed (${scanned} matched so far)`);
} while (cursor);
