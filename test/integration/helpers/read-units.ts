/**
 * Read units of requests through HTTP, from the meter the benchmarks use (bench/capacity.ts) on the
 * runtime's DynamoDB client: the engine's ConsumedCapacity, counted, never timed.
 */
import { beforeAll, expect } from 'vitest';
import { meterCapacity } from '../../../bench/capacity';
import type { ApiOptions, LocalTestRuntime } from './local';

export function useReadMeter(rt: LocalTestRuntime) {
  let meter: ReturnType<typeof meterCapacity> | undefined;
  beforeAll(() => {
    meter = meterCapacity(rt.runtime.dynamo.db);
  });
  const metered = () => {
    if (!meter) throw new Error('The read meter starts in beforeAll');
    return meter;
  };
  return {
    get meter() {
      return metered();
    },
    /** Read units of one call answered 200, with nothing else running. */
    async readUnits(method: string, path: string, options: ApiOptions = {}): Promise<number> {
      await rt.drain();
      metered().reset();
      const res = await rt.api(method, path, options);
      expect(res.status, res.text).toBe(200);
      return metered().reset().read;
    },
  };
}
