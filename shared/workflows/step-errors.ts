/** Errors of the step runners the engine must recognise without loading them (they load on first use). */

/** A send another attempt is making right now: the step is tried again later. */
export class SendInFlightError extends Error {
  override readonly name = 'SendInFlightError';
}
