/**
 * The five-minute background check of sender domains (manifest schedule `domain-check`): every
 * PENDING domain of every project is checked against SES and DNS, least recently checked first,
 * with only the ports the schedule declares it uses.
 */
import type { Context, ScheduledEvent } from 'aws-lambda';
import { systemDns } from '../../../shared/composition/aws-wiring/dns';
import { dynamoStore } from '../../../shared/composition/aws-wiring/dynamo';
import { sesEmailIdentities } from '../../../shared/composition/aws-wiring/ses-identities';
import { checkPendingDomains, type PendingCheckSummary } from '../../../shared/domains/service';
import { lambdaEntry } from '../../../shared/http/lambda';
import { declaredDeps } from '../../../shared/http/ports';
import type { Deps } from '../../../shared/ports';

/** Time kept back from the Lambda timeout so the last checks can finish and be stored. */
const RESERVE_MS = 10_000;

export const createHandler = (deps: Deps) => {
  const scoped = declaredDeps(deps, 'schedule', 'domain-check');
  return async (
    _event: Pick<ScheduledEvent, 'time'>,
    context?: Pick<Context, 'getRemainingTimeInMillis'>,
  ) => {
    const summary: PendingCheckSummary = await checkPendingDomains(scoped, {
      hasTime: () => !context || context.getRemainingTimeInMillis() > RESERVE_MS,
    });
    if (summary.checked > 0 || summary.errors > 0) {
      console.log(JSON.stringify({ level: 'info', message: 'Sender domains checked', ...summary }));
    }
    return summary;
  };
};

export const handler = lambdaEntry(createHandler, {
  kind: 'schedule',
  name: 'domain-check',
  // The AWS adapters of the ports its declared uses need (checked by awsDeps and the tests).
  wiring: { store: dynamoStore, emailIdentities: sesEmailIdentities, dns: systemDns },
});
