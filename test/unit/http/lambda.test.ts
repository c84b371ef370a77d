import type { Context } from 'aws-lambda';
import { afterEach, expect, it, vi } from 'vitest';
import { lambdaEntry } from '../../../shared/http/lambda';

afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

// The deployed functions run without --enable-source-maps: an invocation that fails is logged by
// the entry with its stack mapped to the sources (shared/stack-trace.ts), then fails as before.
it('logs a failed invocation with its stack, then rejects with the same error', async () => {
  vi.stubEnv('TABLE_NAME', 'table');
  vi.stubEnv('AWS_REGION', 'us-east-1');
  const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
  const boom = new Error('handler broke');
  const handler = lambdaEntry(() => async () => Promise.reject(boom), {
    kind: 'http',
    name: 'config',
    wiring: {},
  });

  await expect(handler({}, {} as Context)).rejects.toBe(boom);
  expect(errors).toHaveBeenCalledTimes(1);
  const line = JSON.parse(String(errors.mock.calls[0]![0])) as Record<string, unknown>;
  expect(line).toMatchObject({
    level: 'error',
    message: 'Invocation failed',
    function: 'http config',
    error: 'handler broke',
  });
  expect(line.stack).toMatch(/^Error: handler broke\n\s+at .*lambda\.test\.ts:\d+:\d+/);
});

it('logs nothing for an invocation that succeeds', async () => {
  vi.stubEnv('TABLE_NAME', 'table');
  vi.stubEnv('AWS_REGION', 'us-east-1');
  const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
  const handler = lambdaEntry(() => async () => 'ok', { kind: 'http', name: 'config', wiring: {} });
  await expect(handler({}, {} as Context)).resolves.toBe('ok');
  expect(errors).not.toHaveBeenCalled();
});
