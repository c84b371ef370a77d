/**
 * Reads one SSM Parameter Store value at run time and keeps it for a while, so a warm Lambda asks
 * SSM once per `ttlMs` rather than once per request. `WithDecryption` is always set: it decrypts a
 * SecureString and is ignored for a String, so an operator may store the value either way.
 */
import { GetParameterCommand, type SSMClient } from '@aws-sdk/client-ssm';
import { awsErrorMessage, awsErrorName } from './aws-errors';

export interface SsmParameterOptions {
  /** Parameter name (`/sesame/...`), not its value. */
  readonly name: string;
  /**
   * How long a value read is reused before SSM is asked again.
   * @default 5 minutes
   */
  readonly ttlMs?: number;
  /** Milliseconds since the epoch (tests move it). @default Date.now */
  readonly now?: () => number;
  /** Told about a failed refresh that was answered with the earlier value. @default console.warn */
  readonly onStaleValue?: (error: unknown) => void;
}

export const DEFAULT_PARAMETER_TTL_MS = 5 * 60 * 1000;

/** A parameter that cannot be read: missing, empty, or refused by SSM. */
export class SsmParameterError extends Error {
  override readonly name = 'SsmParameterError';
}

/**
 * A loader of the parameter's value: the first call (and the first after `ttlMs`) reads SSM, and
 * concurrent calls share one read. A failed read is not cached, so the next call tries again; while
 * an earlier value is known, a failed refresh answers that value instead of failing the request.
 */
export function ssmParameterLoader(client: SSMClient, options: SsmParameterOptions): () => Promise<string> {
  const ttlMs = options.ttlMs ?? DEFAULT_PARAMETER_TTL_MS;
  const now = options.now ?? Date.now;
  const onStaleValue =
    options.onStaleValue ??
    ((error: unknown) => console.warn(`${awsErrorMessage(error)}; using the value read earlier`));
  let cached: { value: string; until: number } | undefined;
  let inFlight: Promise<string> | undefined;

  const read = async (): Promise<string> => {
    let value: string | undefined;
    try {
      const out = await client.send(new GetParameterCommand({ Name: options.name, WithDecryption: true }));
      value = out.Parameter?.Value;
    } catch (error) {
      if (awsErrorName(error) === 'ParameterNotFound') {
        throw new SsmParameterError(`SSM parameter ${options.name} does not exist`);
      }
      throw new SsmParameterError(
        `SSM parameter ${options.name} could not be read: ${awsErrorMessage(error)}`,
      );
    }
    if (!value) throw new SsmParameterError(`SSM parameter ${options.name} has no value`);
    cached = { value, until: now() + ttlMs };
    return value;
  };

  return () => {
    if (cached && now() < cached.until) return Promise.resolve(cached.value);
    const stale = cached?.value;
    inFlight ??= read().finally(() => {
      inFlight = undefined;
    });
    if (stale === undefined) return inFlight;
    return inFlight.catch((error: unknown) => {
      onStaleValue(error);
      return stale;
    });
  };
}
