import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, ProjectionType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { table as tableDef } from '../../shared/table';

/** Item reads the repositories make (manifest use `table:read`); `Query` also on each index. */
export const TABLE_READ_ACTIONS = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query'] as const;

/** Item writes the repositories make (manifest use `table:write`). */
export const TABLE_WRITE_ACTIONS = [
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
  'dynamodb:ConditionCheckItem',
] as const;

/**
 * Item-level actions the repositories use. No `Scan` (the architecture forbids it on request
 * paths: only the manifest use `table:scan` grants it, `TABLE_SCAN_ACTIONS`) and no
 * control-plane actions (`DescribeTable`, `UpdateTable`, ...).
 */
export const TABLE_ITEM_ACTIONS = [...TABLE_READ_ACTIONS, ...TABLE_WRITE_ACTIONS] as const;

/** A Scan of the table itself (manifest use `table:scan`: background work only), never of an index. */
export const TABLE_SCAN_ACTIONS = ['dynamodb:Scan'] as const;

export interface TableAccess {
  /** Item reads, and `Query` on the indexes. */
  readonly read: boolean;
  /** Item writes. */
  readonly write: boolean;
  /** A Scan of the table (not of its indexes). @default false */
  readonly scan?: boolean;
}

export interface DataTableProps {
  /**
   * Refuse `DeleteTable` even outside CloudFormation.
   * @default true
   */
  readonly deletionProtection?: boolean;
}

/**
 * The single table, built from `shared/table.ts`: on-demand (no idle cost), point-in-time
 * recovery, TTL, and retained when the stack is deleted.
 */
export class DataTable extends Construct {
  readonly table: Table;

  constructor(scope: Construct, id: string, props: DataTableProps = {}) {
    super(scope, id);
    this.table = new Table(this, 'Table', {
      partitionKey: { name: tableDef.partitionKey, type: AttributeType.STRING },
      sortKey: { name: tableDef.sortKey, type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      timeToLiveAttribute: tableDef.ttlAttribute,
      deletionProtection: props.deletionProtection ?? true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    for (const index of tableDef.indexes) {
      this.table.addGlobalSecondaryIndex({
        indexName: index.name,
        partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
        sortKey: { name: index.sortKey, type: AttributeType.STRING },
        projectionType: index.projection === 'ALL' ? ProjectionType.ALL : ProjectionType.KEYS_ONLY,
      });
    }
  }

  /**
   * Sets `TABLE_NAME` and grants what `access` asks for on the table: item reads with `Query` on
   * each named index (listed one by one rather than `index/*`), item writes, a Scan of the table
   * itself, or none of them (the runtime's environment schema requires the name even where
   * nothing is read or written).
   */
  bind(fn: LambdaFunction, access: TableAccess): void {
    fn.addEnvironment('TABLE_NAME', this.table.tableName);
    const actions = [
      ...(access.read ? TABLE_READ_ACTIONS : []),
      ...(access.write ? TABLE_WRITE_ACTIONS : []),
      ...(access.scan ? TABLE_SCAN_ACTIONS : []),
    ];
    if (actions.length > 0) {
      fn.addToRolePolicy(new PolicyStatement({ actions, resources: [this.table.tableArn] }));
    }
    if (access.read) {
      fn.addToRolePolicy(
        new PolicyStatement({
          actions: ['dynamodb:Query'],
          resources: tableDef.indexes.map((index) => `${this.table.tableArn}/index/${index.name}`),
        }),
      );
    }
  }

  /** `bind` with item reads and writes. */
  bindReadWrite(fn: LambdaFunction): void {
    this.bind(fn, { read: true, write: true });
  }
}
