/**
 * The table's adapter factory. Imported statically: every function with a store uses it on every request, so loading it later saves nothing, and a static import lets esbuild keep only the commands the store sends.
 * One factory per module (see `AwsWiring`, ../aws.ts): an entry point imports the factories it is wired
 * with, and no other factory's `import()` is in its bundle's graph.
 */
import type { Store } from '../../store/store';
import type { PortFactory } from '../aws';
import { dynamoStore as storeOverDynamo } from '../aws-ports/dynamo';

export const dynamoStore: PortFactory<Store> = async (settings) => storeOverDynamo(settings);
