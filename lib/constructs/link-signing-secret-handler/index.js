// Custom resource handler of LinkSigningSecret (lib/constructs/link-signing.ts). CommonJS on
// purpose: CDK's response wrapper (__entrypoint__.js) loads it with require() and reports the
// result to CloudFormation. It makes sure the SSM parameter exists, generating a random value
// once; it never overwrites or deletes one, so links in mail already sent keep working.
const { randomBytes } = require('node:crypto');
const { GetParameterCommand, PutParameterCommand, SSMClient } = require('@aws-sdk/client-ssm');

const ssm = new SSMClient({});

exports.handler = async (event) => {
  const name = event.ResourceProperties.ParameterName;
  if (event.RequestType === 'Delete') return { PhysicalResourceId: event.PhysicalResourceId };
  try {
    await ssm.send(new GetParameterCommand({ Name: name }));
  } catch (error) {
    if (error.name !== 'ParameterNotFound') throw error;
    try {
      await ssm.send(
        new PutParameterCommand({
          Name: name,
          Type: 'String',
          Tier: 'Standard',
          Overwrite: false,
          Value: randomBytes(48).toString('base64url'),
          Description:
            'Sesame: HMAC key of the signed subscription links in emails (keep it; changing it breaks sent links)',
        }),
      );
    } catch (putError) {
      if (putError.name !== 'ParameterAlreadyExists') throw putError;
    }
  }
  return { PhysicalResourceId: name };
};
