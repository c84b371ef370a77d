/** Waiting in tests, always bounded in time: a pause, and polling until something is so. */

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export interface PollOptions {
  /** Between probes. @default 50 */
  readonly intervalMs?: number;
  /** @default 60 s */
  readonly timeoutMs?: number;
  /** @default 10,000 */
  readonly maxTries?: number;
  /** What to show of the last state seen when it times out. */
  readonly last?: () => unknown;
}

/**
 * Calls `probe` every `intervalMs` until it returns something other than undefined, and returns
 * that; fails after `timeoutMs` or `maxTries` probes, naming `what` and the last state seen.
 */
export async function pollUntil<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  options: PollOptions = {},
): Promise<T> {
  const interval = options.intervalMs ?? 50;
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  const maxTries = options.maxTries ?? 10_000;
  for (let i = 0; i < maxTries && Date.now() < deadline; i++) {
    const value = await probe();
    if (value !== undefined) return value;
    await sleep(interval);
  }
  throw new Error(`timed out waiting for ${what}; last seen: ${JSON.stringify(options.last?.())}`);
}

/** `pollUntil` for a condition: resolves once `check` holds. */
export async function waitUntil(
  what: string,
  check: () => boolean | Promise<boolean>,
  options: PollOptions = {},
): Promise<void> {
  await pollUntil(what, async () => ((await check()) ? true : undefined), options);
}
