/**
 * How a counter update of an event tally batch (`tally.ts`) adds once: the update records the
 * batch in the counter item, in the same write, on condition that the item has not recorded it.
 *
 * Batches carry a sequence number, one more than the batch before in the project, and a counter
 * keeps the highest it took (`tallySeq`): a batch applied again, or applied late by a run that
 * stalled after a later batch changed the counter, adds nothing. A batch begun before sequence
 * numbers existed has none, and its counters keep its id (`tally`) instead: applied again it adds
 * nothing, as before.
 */

/** The batch whose counters an update changes. */
export interface TallyMark {
  readonly id: string;
  readonly seq?: number;
}

export interface TallyOnce {
  /** A `SET` clause (without `SET`) recording the batch. */
  readonly assign: string;
  /** The condition that the item has not recorded it. */
  readonly condition: string;
  readonly values: Readonly<Record<string, unknown>>;
}

export function tallyOnce(mark: TallyMark): TallyOnce {
  if (mark.seq !== undefined)
    return {
      assign: 'tallySeq = :tallySeq',
      condition: '(attribute_not_exists(tallySeq) OR tallySeq < :tallySeq)',
      values: { ':tallySeq': mark.seq },
    };
  return {
    assign: 'tally = :tally',
    condition: '(attribute_not_exists(tally) OR tally <> :tally)',
    values: { ':tally': mark.id },
  };
}
