/**
 * Lambda entry helper: the deployed `handler` builds its dependencies from the environment once
 * per cold start (AWS adapters) and reuses them; the local runtime calls `createHandler(deps)`
 * with local adapters instead.
 */
import type { Context } from 'aws-lambda';
import { awsDeps } from '../composition/aws';
import type { Deps } from '../ports';

export function lambdaEntry<E, R>(create: (deps: Deps) => (event: E, context: Context) => Promise<R>) {
  let instance: ((event: E, context: Context) => Promise<R>) | undefined;
  return (event: E, context: Context): Promise<R> => {
    instance ??= create(awsDeps());
    return instance(event, context);
  };
}
