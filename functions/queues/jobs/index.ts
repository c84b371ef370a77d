/**
 * The jobs queue worker: every background job of the service, dispatched by message `type`. The
 * job list is derived from the domains' job modules (`shared/jobs/catalog.ts`); nothing is listed
 * here. The jobs get only the ports the manifest's `jobs` queue declares it uses.
 */
import { dynamoStore } from '../../../shared/composition/aws-wiring/dynamo';
import { s3Blobs } from '../../../shared/composition/aws-wiring/s3';
import { s3InboundMail } from '../../../shared/composition/aws-wiring/s3-inbound';
import { eventBridgeScheduler } from '../../../shared/composition/aws-wiring/scheduler';
import { sesEmailIdentities } from '../../../shared/composition/aws-wiring/ses-identities';
import { sesMailer } from '../../../shared/composition/aws-wiring/ses-mailer';
import { sqsQueue } from '../../../shared/composition/aws-wiring/sqs';
import { ssmLinkSigningSecret } from '../../../shared/composition/aws-wiring/ssm';
import { lambdaEntry } from '../../../shared/http/lambda';
import { declaredDeps } from '../../../shared/http/ports';
import { allJobs, allNormalizers } from '../../../shared/jobs/catalog';
import { type JobDef, jobsWorker, type Normalizer } from '../../../shared/jobs/registry';
import type { Deps } from '../../../shared/ports';

export const jobs: readonly JobDef[] = allJobs;

// For example the upload bucket's "object created" notifications, which start imports, and SES's
// notifications of received mail.
export const normalizers: readonly Normalizer[] = allNormalizers;

export const createHandler = (deps: Deps) =>
  jobsWorker(declaredDeps(deps, 'queue', 'jobs'), jobs, normalizers);

export const handler = lambdaEntry(createHandler, {
  kind: 'queue',
  name: 'jobs',
  // The AWS adapters of the ports its declared uses need (checked by awsDeps and the tests).
  wiring: {
    store: dynamoStore,
    queue: sqsQueue,
    scheduler: eventBridgeScheduler,
    blobs: s3Blobs,
    mailer: sesMailer,
    linkSigningSecret: ssmLinkSigningSecret,
    inboundMail: s3InboundMail,
    // Deleting a project deletes the SES identities Sesame made for its domains.
    emailIdentities: sesEmailIdentities,
  },
});
