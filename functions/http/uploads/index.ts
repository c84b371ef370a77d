/** Uploads route group: reads the image out of the multipart body, stores it, answers where it is served. */

import { dynamoStore } from '../../../shared/composition/aws-wiring/dynamo';
import { s3Images } from '../../../shared/composition/aws-wiring/s3-images';
import { ssmLinkSigningSecret } from '../../../shared/composition/aws-wiring/ssm';
import { lambdaEntry } from '../../../shared/http/lambda';
import { created } from '../../../shared/http/response';
import { type AuthedRequest, httpGroup, type RouteImpl } from '../../../shared/http/stack';
import type { Deps } from '../../../shared/ports';
import { uploadedImageAnswer } from '../../../shared/uploads/responses';
import { imageFileOf, uploadImage } from '../../../shared/uploads/service';

export function routes(deps: Deps): RouteImpl[] {
  return [
    {
      method: 'POST',
      path: '/uploads/image',
      flatBadRequest: true,
      responses: { 201: uploadedImageAnswer },
      rawBody: {
        contentType: 'multipart/form-data',
        description: 'The image in the part `file` (PNG, JPEG, GIF or WebP, at most 4 MB)',
      },
      handler: async (req: AuthedRequest) => {
        const file = await imageFileOf(req.rawBody, req.headers['content-type']);
        return created(await uploadImage(deps, req.projectId, file));
      },
    },
  ];
}

export const createHandler = (deps: Deps) => httpGroup(deps, 'uploads', routes);

export const handler = lambdaEntry(createHandler, {
  kind: 'http',
  name: 'uploads',
  // The AWS adapters of the ports its declared uses need (checked by awsDeps and the tests).
  wiring: { store: dynamoStore, images: s3Images, linkSigningSecret: ssmLinkSigningSecret },
});
