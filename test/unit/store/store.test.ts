import { ConditionalCheckFailedException, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  DeleteCommand,
  DynamoDBDocumentClient,
  PutCommand,
  QueryCommand,
  ScanCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '../../../shared/errors';
import { createStore } from '../../../shared/store/dynamo';
import { encodeCursor } from '../../../shared/store/store';

const db = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'eu-west-1' }));
const dynamo = mockClient(db);
const store = createStore(db, 'sesame');

const conditionFailed = () => new ConditionalCheckFailedException({ message: 'no', $metadata: {} });
const contact = (n: number) => ({
  pk: `P#p1#C#c${n}`,
  sk: '#CONTACT',
  gsi3pk: 'P#p1#CONTACTS',
  gsi3sk: `2026-01-0${n}#c${n}`,
  id: `c${n}`,
});

beforeEach(() => {
  dynamo.reset();
});

describe('queries', () => {
  it('read the physical index of an access pattern, with the key condition built by the store', async () => {
    dynamo.on(QueryCommand).resolves({ Items: [] });
    await store.query(
      {
        index: 'contactsByEmail',
        partition: 'P#p1#CONTACTS',
        sort: { beginsWith: 'ann' },
        filter: 'subscribed = :s',
        values: { ':s': true },
        attributes: ['id', 'name'],
      },
      { limit: 5, forward: false },
    );
    expect(dynamo.commandCalls(QueryCommand)[0]!.args[0].input).toStrictEqual({
      TableName: 'sesame',
      IndexName: 'gsi4',
      KeyConditionExpression: 'gsi4pk = :kp AND begins_with(gsi4sk, :ks)',
      FilterExpression: 'subscribed = :s',
      ProjectionExpression: '#attr0, #attr1',
      ExpressionAttributeNames: { '#attr0': 'id', '#attr1': 'name' },
      ExpressionAttributeValues: { ':kp': 'P#p1#CONTACTS', ':ks': 'ann', ':s': true },
      ScanIndexForward: false,
      Limit: 5,
      ExclusiveStartKey: undefined,
    });
  });

  it('read the table by partition and sort-key range, strongly consistent when asked', async () => {
    dynamo.on(QueryCommand).resolves({ Items: [{ sk: '2026-01-01T00' }] });
    const items = [];
    for await (const item of store.queryAll({
      partition: 'P#p1#EVHOURS',
      sort: { between: ['2026-01-01T00', '2026-01-02T00'] },
      consistent: true,
    })) {
      items.push(item);
    }
    expect(items).toEqual([{ sk: '2026-01-01T00' }]);
    expect(dynamo.commandCalls(QueryCommand)[0]!.args[0].input).toMatchObject({
      KeyConditionExpression: 'pk = :kp AND sk BETWEEN :ks AND :ke',
      ExpressionAttributeValues: { ':kp': 'P#p1#EVHOURS', ':ks': '2026-01-01T00', ':ke': '2026-01-02T00' },
      ConsistentRead: true,
    });
    expect(dynamo.commandCalls(QueryCommand)[0]!.args[0].input).not.toHaveProperty('IndexName');
  });

  it('refuse expressions that reuse the key condition placeholders', async () => {
    await expect(store.count({ partition: 'p', filter: 'a = :kp', values: { ':kp': 1 } })).rejects.toThrow(
      /placeholder of the store/,
    );
  });

  it('count request after request', async () => {
    dynamo
      .on(QueryCommand)
      .resolvesOnce({ Count: 3, LastEvaluatedKey: { pk: 'a', sk: 'b' } })
      .resolvesOnce({ Count: 2 });
    expect(await store.count({ index: 'eventsByName', partition: 'P#p1#EVENT#signup' })).toBe(5);
    const calls = dynamo.commandCalls(QueryCommand).map((c) => c.args[0].input);
    expect(calls.map((c) => [c.Select, c.ExclusiveStartKey])).toEqual([
      ['COUNT', undefined],
      ['COUNT', { pk: 'a', sk: 'b' }],
    ]);
  });
});

describe('pages', () => {
  const query = { index: 'contactsByCreation', partition: 'P#p1#CONTACTS' } as const;

  it('read one more than the limit and resume after the last item shown', async () => {
    dynamo.on(QueryCommand).resolves({ Items: [contact(1), contact(2), contact(3)] });
    const page = await store.page(query, { limit: 2 });
    expect(page.items.map((i) => i.id)).toEqual(['c1', 'c2']);
    expect(page.hasMore).toBe(true);
    const { id: _id, ...position } = contact(2);
    expect(page.cursor).toBe(encodeCursor(position));
    expect(dynamo.commandCalls(QueryCommand)[0]!.args[0].input.Limit).toBe(3);

    dynamo.reset();
    dynamo.on(QueryCommand).resolves({ Items: [contact(3)] });
    const next = await store.page(query, { limit: 2, cursor: page.cursor });
    expect(next).toEqual({ items: [contact(3)], cursor: '', hasMore: false });
    expect(dynamo.commandCalls(QueryCommand)[0]!.args[0].input.ExclusiveStartKey).toEqual(position);
  });

  it('read the keys a page resumes from even when the query names other attributes', async () => {
    dynamo.on(QueryCommand).resolves({ Items: [contact(1), contact(2), contact(3)] });
    const page = await store.page({ ...query, attributes: ['id'] }, { limit: 2 });
    const input = dynamo.commandCalls(QueryCommand)[0]!.args[0].input;
    expect(Object.values(input.ExpressionAttributeNames ?? {}).sort()).toEqual(
      ['gsi3pk', 'gsi3sk', 'id', 'pk', 'sk'].sort(),
    );
    const { id: _id, ...position } = contact(2);
    expect(page.cursor).toBe(encodeCursor(position));
  });

  it('go on reading while a filter leaves them short, up to maxRequests', async () => {
    dynamo
      .on(QueryCommand)
      .resolvesOnce({ Items: [contact(1)], LastEvaluatedKey: contact(1) })
      .resolvesOnce({ Items: [], LastEvaluatedKey: contact(2) })
      .resolvesOnce({ Items: [contact(3)], LastEvaluatedKey: contact(3) });
    const page = await store.page(
      { ...query, filter: 'subscribed = :s', values: { ':s': true } },
      {
        limit: 5,
        maxRequests: 3,
      },
    );
    expect(page.items.map((i) => i.id)).toEqual(['c1', 'c3']);
    // Stopped by the request budget, not by the end: the rest starts where the last request did.
    expect(page).toMatchObject({ hasMore: true, cursor: encodeCursor(contact(3)) });
    expect(dynamo.commandCalls(QueryCommand)).toHaveLength(3);
  });

  it('refuse a cursor of another partition or a forged one, before reading', async () => {
    const foreign = encodeCursor({ ...contact(1), gsi3pk: 'P#other#CONTACTS' });
    await expect(store.page(query, { limit: 2, cursor: foreign })).rejects.toBeInstanceOf(AppError);
    await expect(store.page(query, { limit: 2, cursor: 'not-json' })).rejects.toMatchObject({
      statusCode: 400,
    });
    expect(dynamo.commandCalls(QueryCommand)).toHaveLength(0);
  });
});

describe('writes', () => {
  it('send a conditional write and answer false when its condition fails', async () => {
    dynamo.on(PutCommand).rejectsOnce(conditionFailed()).resolves({});
    const write = { put: { pk: 'a', sk: 'b', n: 1 }, if: 'attribute_not_exists(pk)' };
    expect(await store.writeIf(write)).toBe(false);
    expect(await store.writeIf(write)).toBe(true);
    expect(dynamo.commandCalls(PutCommand)[0]!.args[0].input).toStrictEqual({
      TableName: 'sesame',
      Item: { pk: 'a', sk: 'b', n: 1 },
      ConditionExpression: 'attribute_not_exists(pk)',
    });
  });

  it('let other errors through, and a failed condition of an unconditional-looking write too', async () => {
    dynamo.on(DeleteCommand).rejects(new Error('throttled'));
    await expect(
      store.writeIf({ delete: { pk: 'a', sk: 'b' }, if: 'x = :x', values: { ':x': 1 } }),
    ).rejects.toThrow('throttled');
    dynamo.on(PutCommand).rejects(conditionFailed());
    await expect(
      store.write({ put: { pk: 'a', sk: 'b' }, if: 'attribute_not_exists(pk)' }),
    ).rejects.toBeInstanceOf(ConditionalCheckFailedException);
  });

  it('answer the attributes an update or a delete asked for, and ask only when told', async () => {
    dynamo.on(UpdateCommand).resolves({ Attributes: { count: 7 } });
    dynamo.on(DeleteCommand).resolves({ Attributes: { pk: 'a', sk: 'b', name: 'old' } });
    const updated = await store.write({
      update: { pk: 'a', sk: 'b' },
      expression: 'ADD #c :one',
      names: { '#c': 'count' },
      values: { ':one': 1 },
      returnNew: true,
    });
    expect(updated).toEqual({ count: 7 });
    expect(await store.write({ delete: { pk: 'a', sk: 'b' }, returnOld: true })).toMatchObject({
      name: 'old',
    });
    await store.write({ delete: { pk: 'a', sk: 'b' } });
    expect(dynamo.commandCalls(UpdateCommand)[0]!.args[0].input).toStrictEqual({
      TableName: 'sesame',
      Key: { pk: 'a', sk: 'b' },
      UpdateExpression: 'ADD #c :one',
      ExpressionAttributeNames: { '#c': 'count' },
      ExpressionAttributeValues: { ':one': 1 },
      ReturnValues: 'UPDATED_NEW',
    });
    const deletes = dynamo.commandCalls(DeleteCommand).map((c) => c.args[0].input.ReturnValues);
    expect(deletes).toEqual(['ALL_OLD', undefined]);
  });
});

describe('batch reads', () => {
  it('ask 100 keys a request and retry the unprocessed ones', async () => {
    const keys = Array.from({ length: 150 }, (_, i) => ({ pk: `P#p1#C#c${i}`, sk: '#CONTACT' }));
    dynamo
      .on(BatchGetCommand)
      .resolvesOnce({
        Responses: { sesame: [{ id: 'c0' }] },
        UnprocessedKeys: { sesame: { Keys: [keys[1]!] } },
      })
      .resolvesOnce({ Responses: { sesame: [{ id: 'c1' }] } })
      .resolvesOnce({ Responses: { sesame: [{ id: 'c100' }] } });
    const items = await store.batchGet(keys, { consistent: true });
    expect(items.map((i) => i.id)).toEqual(['c0', 'c1', 'c100']);
    const requests = dynamo.commandCalls(BatchGetCommand).map((c) => c.args[0].input.RequestItems!.sesame!);
    expect(requests.map((r) => [r.Keys!.length, r.ConsistentRead])).toEqual([
      [100, true],
      [1, true],
      [50, true],
    ]);
  });

  it('send nothing for no keys', async () => {
    expect(await store.batchGet([])).toEqual([]);
    expect(dynamo.commandCalls(BatchGetCommand)).toHaveLength(0);
  });
});

describe('scan', () => {
  it('reads the table itself (never an index) with the filter, a page at a time from its cursor', async () => {
    const last = { pk: 'P#p1#C#c2', sk: '#CONTACT' };
    dynamo
      .on(ScanCommand)
      .resolvesOnce({ Items: [contact(1)], LastEvaluatedKey: last })
      .resolvesOnce({ Items: [] });
    const scan = {
      filter: 'pk = :p OR begins_with(pk, :inside)',
      values: { ':p': 'P#p1', ':inside': 'P#p1#' },
    };
    const first = await store.scan(scan, { limit: 2 });
    expect(first).toEqual({ items: [contact(1)], cursor: encodeCursor(last) });
    const second = await store.scan(scan, { limit: 2, cursor: first.cursor });
    expect(second).toEqual({ items: [], cursor: '' });
    const inputs = dynamo.commandCalls(ScanCommand).map((c) => c.args[0].input);
    expect(inputs[0]).toStrictEqual({
      TableName: 'sesame',
      FilterExpression: 'pk = :p OR begins_with(pk, :inside)',
      ExpressionAttributeValues: { ':p': 'P#p1', ':inside': 'P#p1#' },
      Limit: 2,
      ExclusiveStartKey: undefined,
    });
    expect(inputs[1]?.ExclusiveStartKey).toEqual(last);
    expect(inputs.some((i) => 'IndexName' in i)).toBe(false);
  });
});
