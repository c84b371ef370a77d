/**
 * The benchmarks' capacity meter (bench/capacity.ts): its arithmetic against hand-computed
 * DynamoDB bills, then the meter itself over the embedded engine, so every write request kind is
 * charged for its index writes and failed conditions.
 */
import {
  BatchWriteCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  chargeFailedWrite,
  chargeWrite,
  itemBytes,
  type Meter,
  meterCapacity,
  readUnits,
} from '../../../bench/capacity';
import { type LocalDynamo, startDynamo } from '../../../shared/local/dynamo';

const total = (c: ReturnType<typeof chargeWrite>) => c.table + c.indexes.reduce((s, w) => s + w.units, 0);

const inBoth = {
  pk: 'P#1#C#a',
  sk: '#CONTACT',
  gsi1pk: 'P#1#CONTACTS',
  gsi1sk: '2024-01-01#a',
  gsi2pk: 'P#1#CONTACTS',
  gsi2sk: 'a@x.org#a',
  data: { plan: 'pro' },
};
const inOne = { pk: 'P#1#C#a', sk: 'EV#1', gsi1pk: 'P#1#EVENTS', gsi1sk: '1#e', n: 1 };

describe('chargeWrite (hand-computed bills)', () => {
  it('a new item in two indexes: 1 table + 1 per index = 3', () => {
    const c = chargeWrite(undefined, inBoth);
    expect(c.indexes.map((w) => w.op)).toEqual(['put', 'put']);
    expect(total(c)).toBe(3);
  });

  it('an update of an item in one ALL-projected index, not touching its keys: 1 + 1 = 2', () => {
    const c = chargeWrite(inOne, { ...inOne, n: 2 });
    expect(c.indexes).toEqual([{ index: 'gsi1', op: 'update', units: 1 }]);
    expect(total(c)).toBe(2);
  });

  it('an update changing a GSI sort key: 1 + 2 (delete and put in that index)', () => {
    const c = chargeWrite(inOne, { ...inOne, gsi1sk: '2#e' });
    expect(c.indexes).toEqual([{ index: 'gsi1', op: 'move', units: 2 }]);
    expect(total(c)).toBe(3);
  });

  it('a delete of an item in two indexes: 3', () => {
    const c = chargeWrite(inBoth, undefined);
    expect(c.indexes.map((w) => w.op)).toEqual(['delete', 'delete']);
    expect(total(c)).toBe(3);
  });

  it('a failed condition: 1 for a small or missing item', () => {
    expect(chargeFailedWrite(undefined)).toBe(1);
    expect(chargeFailedWrite(inBoth)).toBe(1);
  });

  it('an item leaving an index (tombstone) pays that index a delete; nothing changed pays no index', () => {
    const { gsi1pk: _a, gsi1sk: _b, gsi2pk: _c, gsi2sk: _d, ...tombstone } = inBoth;
    expect(total(chargeWrite(inBoth, { ...tombstone, deletedAt: 'now' }))).toBe(3);
    expect(total(chargeWrite(inOne, { ...inOne }))).toBe(1);
    expect(total(chargeWrite(undefined, { pk: 'x', sk: '#RATE', n: 1 }))).toBe(1);
  });

  it('charges per started KB of the larger item, in the table and each index', () => {
    const big = { ...inBoth, blob: 'x'.repeat(1500) };
    expect(itemBytes(big)).toBeGreaterThan(1024);
    expect(total(chargeWrite(undefined, big))).toBe(6);
    // Shrinking a 2 KB item in place: the table and the index are billed for the larger one.
    expect(total(chargeWrite({ ...inOne, blob: 'x'.repeat(1500) }, inOne))).toBe(4);
  });

  it('a KEYS_ONLY index is written only when the item enters, leaves or moves in it, at its keys size', () => {
    const keysOnly = [
      { name: 'gsi3', partitionKey: 'gsi3pk', sortKey: 'gsi3sk', projection: 'KEYS_ONLY' },
    ] as const;
    const run = {
      pk: 'P#1#WFX#w',
      sk: 'X#e',
      gsi3pk: 'P#1#WFX#w#RUNNING',
      gsi3sk: '1#e',
      blob: 'x'.repeat(1500),
    };
    // Entering: the 2 KB item costs 2, its keys-only entry 1.
    expect(chargeWrite(undefined, run, keysOnly)).toEqual({
      table: 2,
      indexes: [{ index: 'gsi3', op: 'put', units: 1 }],
    });
    // Any other attribute changing: no index write.
    expect(chargeWrite(run, { ...run, blob: 'y'.repeat(1500), step: 2 }, keysOnly).indexes).toEqual([]);
    // The status (index key) changing: a delete and a put of the small entry.
    expect(chargeWrite(run, { ...run, gsi3pk: 'P#1#WFX#w#COMPLETED' }, keysOnly).indexes).toEqual([
      { index: 'gsi3', op: 'move', units: 2 },
    ]);
    const { gsi3pk: _p, gsi3sk: _s, ...out } = run;
    expect(chargeWrite(run, out, keysOnly).indexes).toEqual([{ index: 'gsi3', op: 'delete', units: 1 }]);
  });

  it('sizes items as DynamoDB does: names plus values', () => {
    expect(itemBytes({ pk: 'ab', n: 12345, b: true, m: { k: 'v' }, l: ['x'] })).toBe(
      2 + 2 + (1 + 4) + (1 + 1) + (1 + 3 + 1 + 1 + 1) + (1 + 3 + 1 + 1),
    );
  });
});

describe('readUnits (DynamoDB bills a Query or a Scan page at least half a unit)', () => {
  it('raises an empty Query or Scan page to 0.5, or 1 when consistent', () => {
    expect(readUnits('Query', {}, 0)).toBe(0.5);
    expect(readUnits('Scan', {}, 0)).toBe(0.5);
    expect(readUnits('Query', { ConsistentRead: true }, 0)).toBe(1);
    expect(readUnits('Scan', { ConsistentRead: true }, 0)).toBe(1);
  });

  it("keeps the engine's units above the minimum, and those of a GetItem", () => {
    expect(readUnits('Query', {}, 2.5)).toBe(2.5);
    expect(readUnits('Get', {}, 0.5)).toBe(0.5);
    expect(readUnits('BatchGet', {}, 1.5)).toBe(1.5);
  });
});

describe('meterCapacity over the embedded engine', () => {
  let dynamo: LocalDynamo;
  let meter: Meter;
  const TableName = 'meter-test';
  const units = () => meter.reset().write;

  beforeAll(async () => {
    dynamo = await startDynamo({ tableName: TableName });
    meter = meterCapacity(dynamo.db);
  });
  afterAll(() => dynamo?.close());

  it('charges PutItem, UpdateItem and DeleteItem for their index writes, not for its own reads', async () => {
    meter.reset();
    await dynamo.db.send(new PutCommand({ TableName, Item: inBoth }));
    expect(meter.units.read).toBe(0);
    expect(units()).toBe(3);
    await dynamo.db.send(
      new UpdateCommand({
        TableName,
        Key: { pk: inBoth.pk, sk: inBoth.sk },
        UpdateExpression: 'SET v = :v',
        ExpressionAttributeValues: { ':v': 1 },
      }),
    );
    expect(units()).toBe(3);
    await dynamo.db.send(
      new UpdateCommand({
        TableName,
        Key: { pk: inBoth.pk, sk: inBoth.sk },
        UpdateExpression: 'SET gsi1sk = :v',
        ExpressionAttributeValues: { ':v': '2025' },
      }),
    );
    const moved = meter.reset();
    expect(moved.write).toBe(1 + 2 + 1);
    expect(moved.writes[0]).toMatchObject({ command: 'Update', entity: 'contact', failed: false });
    await dynamo.db.send(new DeleteCommand({ TableName, Key: { pk: inBoth.pk, sk: inBoth.sk } }));
    expect(units()).toBe(3);
  });

  it('charges a failed conditional write 1 unit and records it as failed', async () => {
    await dynamo.db.send(new PutCommand({ TableName, Item: inOne }));
    meter.reset();
    await expect(
      dynamo.db.send(
        new PutCommand({ TableName, Item: inOne, ConditionExpression: 'attribute_not_exists(pk)' }),
      ),
    ).rejects.toThrow();
    const r = meter.reset();
    expect(r.write).toBe(1);
    expect(r.writes).toMatchObject([{ command: 'Put', entity: 'event', failed: true, indexes: [] }]);
  });

  it('charges each request of a BatchWriteItem by the item before and after', async () => {
    meter.reset();
    await dynamo.db.send(
      new BatchWriteCommand({
        RequestItems: {
          [TableName]: [
            { PutRequest: { Item: { ...inBoth, pk: 'P#1#C#b' } } },
            { PutRequest: { Item: { ...inOne, n: 5 } } },
            { DeleteRequest: { Key: { pk: 'nothing', sk: 'here' } } },
          ],
        },
      }),
    );
    const r = meter.reset();
    expect(r.writes.map((w) => [w.command, w.units])).toEqual([
      ['BatchPut', 3],
      ['BatchPut', 2],
      ['BatchDelete', 1],
    ]);
    expect(r.write).toBe(6);
  });

  it('charges an empty Query and an empty Scan page 0.5 RCU (1 consistent), as DynamoDB bills them', async () => {
    meter.reset();
    const empty = {
      TableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': 'no such partition' },
    };
    expect((await dynamo.db.send(new QueryCommand(empty))).Count).toBe(0);
    expect(meter.reset().read).toBe(0.5);
    await dynamo.db.send(new QueryCommand({ ...empty, ConsistentRead: true }));
    expect(meter.reset().read).toBe(1);
    await dynamo.db.send(
      new QueryCommand({
        TableName,
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :pk',
        ExpressionAttributeValues: { ':pk': 'no such partition' },
      }),
    );
    expect(meter.reset().read).toBe(0.5);
    // No item of these tests carries gsi3's keys: a Scan of it is one empty page.
    const scan = await dynamo.db.send(new ScanCommand({ TableName, IndexName: 'gsi3' }));
    expect(scan.Count).toBe(0);
    expect(meter.reset().read).toBe(0.5);
    // A missing item's GetItem: the engine's 0.5 already, not raised further.
    await dynamo.db.send(new GetCommand({ TableName, Key: { pk: 'none', sk: 'none' } }));
    expect(meter.reset().read).toBe(0.5);
  });

  it('charges a Query that finds a small item 0.5 RCU, not more', async () => {
    await meter.unmetered(() => dynamo.db.send(new PutCommand({ TableName, Item: { pk: 'q', sk: '1' } })));
    meter.reset();
    await dynamo.db.send(
      new QueryCommand({
        TableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': 'q' },
      }),
    );
    expect(meter.reset().read).toBe(0.5);
  });

  it('meters nothing inside unmetered()', async () => {
    meter.reset();
    await meter.unmetered(() => dynamo.db.send(new PutCommand({ TableName, Item: { ...inBoth, pk: 'z' } })));
    expect(meter.reset()).toMatchObject({ read: 0, write: 0, writes: [] });
  });
});
