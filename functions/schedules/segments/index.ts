/**
 * The periodic segment job (manifest schedule `segments-periodic`): queues the re-evaluation of
 * drifting segments, the compute of tracked ones and builds lost to a crash
 * (shared/segments/periodic.ts), with only the ports the schedule declares it uses.
 */
import type { ScheduledEvent } from 'aws-lambda';
import { dynamoStore } from '../../../shared/composition/aws-wiring/dynamo';
import { sqsQueue } from '../../../shared/composition/aws-wiring/sqs';
import { lambdaEntry } from '../../../shared/http/lambda';
import { declaredDeps } from '../../../shared/http/ports';
import type { Deps } from '../../../shared/ports';
import { runPeriodicSegments } from '../../../shared/segments/periodic';

export const createHandler = (deps: Deps) => {
  const scoped = declaredDeps(deps, 'schedule', 'segments-periodic');
  return async (_event: Pick<ScheduledEvent, 'time'>) => {
    const summary = await runPeriodicSegments(scoped);
    if (summary.visited > 0) {
      console.log(JSON.stringify({ level: 'info', message: 'Segments visited', ...summary }));
    }
    return summary;
  };
};

export const handler = lambdaEntry(createHandler, {
  kind: 'schedule',
  name: 'segments-periodic',
  // The AWS adapters of the ports its declared uses need (checked by awsDeps and the tests).
  wiring: { store: dynamoStore, queue: sqsQueue },
});
