/**
 * Lambda authorizer of the direct upload `POST /contacts/import` (REST API, REQUEST type): checks
 * the secret key (or a member's session and X-Project-Id) and the request's headers, creates the import job, and hands API Gateway the
 * project and job ids that name the stored object. See shared/imports/upload.ts.
 */
import { dynamoStore } from '../../../shared/composition/aws-wiring/dynamo';
import { eventBridgeScheduler } from '../../../shared/composition/aws-wiring/scheduler';
import { ssmLinkSigningSecret } from '../../../shared/composition/aws-wiring/ssm';
import { lambdaEntry } from '../../../shared/http/lambda';
import { declaredDeps } from '../../../shared/http/ports';
import { authorizeImportUpload, type UploadAuthorizerEvent } from '../../../shared/imports/upload';
import type { Deps } from '../../../shared/ports';

export const createHandler = (deps: Deps) => {
  const scoped = declaredDeps(deps, 'authorizer', 'contacts-import');
  return (event: UploadAuthorizerEvent) => authorizeImportUpload(scoped, event);
};

export const handler = lambdaEntry(createHandler, {
  kind: 'authorizer',
  name: 'contacts-import',
  // The AWS adapters of the ports its declared uses need (checked by awsDeps and the tests).
  wiring: { store: dynamoStore, scheduler: eventBridgeScheduler, linkSigningSecret: ssmLinkSigningSecret },
});
