import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, ProjectionType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { table as tableDef } from '../../shared/table';

/**
 * Item-level actions the repositories use. No `Scan` (the architecture forbids it on request
 * paths) and no control-plane actions (`DescribeTable`, `UpdateTable`, ...).
 */
export const TABLE_ITEM_ACTIONS = [
  'dynamodb:GetItem',
  'dynamodb:BatchGetItem',
  'dynamodb:Query',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
  'dynamodb:ConditionCheckItem',
] as const;

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
        projectionType: ProjectionType.ALL,
      });
    }
  }

  /**
   * Sets `TABLE_NAME` and grants item reads and writes on the table, plus `Query` on each named
   * index (listed one by one rather than `index/*`).
   */
  bindReadWrite(fn: LambdaFunction): void {
    fn.addEnvironment('TABLE_NAME', this.table.tableName);
    fn.addToRolePolicy(
      new PolicyStatement({ actions: [...TABLE_ITEM_ACTIONS], resources: [this.table.tableArn] }),
    );
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: ['dynamodb:Query'],
        resources: tableDef.indexes.map((index) => `${this.table.tableArn}/index/${index.name}`),
      }),
    );
  }
}
