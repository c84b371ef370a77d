/**
 * How the fan-out sizes its parallelism (shared/campaigns/fanout.ts): the lanes of a large
 * audience from the configured rate, and each lane's sends in flight from its share of the rate
 * and the provider latency it measured.
 */
import { describe, expect, it } from 'vitest';
import { inFlightFor, lanesFor, MAX_LANES } from '../../../shared/campaigns/fanout';

describe('lanesFor', () => {
  it('plans two lanes at least, one more per 100 a second, MAX_LANES at most', () => {
    expect(lanesFor(1)).toBe(2);
    expect(lanesFor(14)).toBe(2);
    expect(lanesFor(200)).toBe(2);
    expect(lanesFor(201)).toBe(3);
    expect(lanesFor(300)).toBe(3);
    expect(lanesFor(1000)).toBe(MAX_LANES);
    expect(lanesFor(100_000)).toBe(MAX_LANES);
  });
});

describe('inFlightFor', () => {
  it('is the rate x the latency measured, with half as much again, within [8, 64]', () => {
    // 250 a second (1,000 over four lanes) at 100 ms: 25 in flight keep up; 38 with the margin.
    expect(inFlightFor(250, 0.1)).toBe(38);
    expect(inFlightFor(100, 0.2)).toBe(30);
    // Grows with the latency: a slower provider needs more sends at once for the same rate.
    expect(inFlightFor(100, 0.4)).toBeGreaterThan(inFlightFor(100, 0.2));
    // A slow rate or a fast provider: the floor.
    expect(inFlightFor(7, 0.1)).toBe(8);
    expect(inFlightFor(1000, 0.001)).toBe(8);
    // A slow provider at a high rate: the ceiling.
    expect(inFlightFor(500, 1)).toBe(64);
  });
});
