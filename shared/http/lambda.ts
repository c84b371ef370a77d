/**
 * Lambda entry helper: the deployed `handler` builds its dependencies from the environment once
 * per cold start (AWS adapters) and reuses them; the local runtime calls `createHandler(deps)`
 * with local adapters instead. An entry point names its manifest entry and the AWS adapter
 * factories it is wired with (shared/composition/aws-wiring/); `awsDeps` checks the wiring
 * against the entry's declared uses and builds each port on its first use.
 */
import type { Context } from 'aws-lambda';
import { type AwsWiring, awsDeps } from '../composition/aws';
import { type FunctionKind, functionUses, manifest } from '../manifest';
import type { Deps } from '../ports';
import { sourceMappedStack } from '../stack-trace';

/** Which function of the manifest an entry point is, and what it is wired with on AWS. */
export interface EntryWiring {
  readonly kind: FunctionKind;
  readonly name: string;
  readonly wiring: AwsWiring;
}

/** The declared uses of the manifest's function `name` of `kind`. */
export function declaredUses(kind: FunctionKind, name: string) {
  const fn = functionUses(manifest).find((f) => f.kind === kind && f.name === name);
  if (!fn) throw new Error(`No ${kind} function named ${name} in the manifest`);
  return fn.uses;
}

/** The handler, with the entry's wiring attached for the tests (`handler.entry`). */
export function lambdaEntry<E, R>(
  create: (deps: Deps) => (event: E, context: Context) => Promise<R>,
  entry: EntryWiring,
) {
  let instance: ((event: E, context: Context) => Promise<R>) | undefined;
  const handler = (event: E, context: Context): Promise<R> => {
    instance ??= create(
      awsDeps(process.env, {
        uses: declaredUses(entry.kind, entry.name),
        wiring: entry.wiring,
        owner: `${entry.kind} function ${entry.name}`,
      }),
    );
    return instance(event, context).catch((error: unknown) => {
      // Lambda logs the error too, but at the bundle's minified positions (the functions run
      // without --enable-source-maps, see shared/stack-trace.ts): this line has the sources'.
      console.error(
        JSON.stringify({
          level: 'error',
          message: 'Invocation failed',
          function: `${entry.kind} ${entry.name}`,
          error: error instanceof Error ? error.message : String(error),
          stack: sourceMappedStack(error),
        }),
      );
      throw error;
    });
  };
  return Object.assign(handler, { entry });
}
