/** Lambda invocation context for handlers invoked in-process by the local runtime. */
import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';

export const LOCAL_ACCOUNT_ID = '000000000000';
export const LOCAL_REGION = 'us-east-1';

export interface FunctionSettings {
  /** Manifest name of the route group, queue or schedule. */
  readonly name: string;
  readonly memoryMb: number;
  readonly timeoutMs: number;
}

/** A fresh context per invocation, as Lambda gives (own request id, remaining time). */
export function lambdaContext(fn: FunctionSettings): Context {
  const started = Date.now();
  const functionName = `sesame-local-${fn.name}`;
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:function:${functionName}`,
    memoryLimitInMB: String(fn.memoryMb),
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, fn.timeoutMs - (Date.now() - started)),
    done: () => {},
    fail: () => {},
    succeed: () => {},
  };
}

/** Rejects with Lambda's timeout message when `promise` outlives `ms`. */
export function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Task timed out after ${(ms / 1000).toFixed(2)} seconds`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
