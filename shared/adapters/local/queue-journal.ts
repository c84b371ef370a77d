/**
 * The local queue's journal (`queues.jsonl` in the data folder): every change of a message is
 * appended before the change is acknowledged, so a restart finds the queues as they were (see
 * `LocalQueue`). `replay` rebuilds the stored state from the entries; `snapshot` compacts it.
 */
import { join } from 'node:path';
import { Journal } from './files';

/** A message as stored (its in-flight flag is not: after a restart nothing is in flight). */
export interface StoredMessage {
  readonly queue: string;
  readonly messageId: string;
  readonly body: string;
  readonly typeAttribute: string | undefined;
  readonly sentAt: number;
  visibleAt: number;
  receiveCount: number;
  firstReceivedAt: number | undefined;
  lastError: string | undefined;
}

/** A message that exhausted its receives, as kept in the dead-letter list. */
export interface DeadLetter {
  readonly queue: string;
  readonly messageId: string;
  readonly body: string;
  readonly receiveCount: number;
  /** ISO times. */
  readonly sentAt: string;
  readonly deadAt: string;
  readonly lastError: string | undefined;
}

export type JournalEntry =
  | { readonly op: 'put'; readonly m: StoredMessage }
  | { readonly op: 'recv'; readonly id: string; readonly receiveCount: number; readonly at: number }
  | { readonly op: 'retry'; readonly id: string; readonly visibleAt: number; readonly lastError: string }
  | { readonly op: 'del'; readonly id: string }
  | { readonly op: 'dlq'; readonly d: DeadLetter }
  | { readonly op: 'undlq'; readonly id: string };

/** What the entries say the queues hold. */
export interface ReplayedState {
  readonly messages: StoredMessage[];
  readonly dead: DeadLetter[];
  /** Messages whose last receive has no outcome: the process stopped while their worker ran. */
  readonly unanswered: ReadonlySet<string>;
}

export class QueueJournal {
  private readonly journal: Journal<JournalEntry>;

  constructor(dataDir: string) {
    this.journal = new Journal<JournalEntry>(join(dataDir, 'queues.jsonl'));
  }

  append(entry: JournalEntry): void {
    this.journal.append(entry);
  }

  /** Entries appended since the last `snapshot`. */
  get appendedSinceSnapshot(): number {
    return this.journal.appendedSinceRewrite;
  }

  /** The stored state, replayed from the entries on disk. */
  replay(): ReplayedState {
    const byId = new Map<string, StoredMessage>();
    const dead = new Map<string, DeadLetter>();
    const unanswered = new Set<string>();
    for (const e of this.journal.read()) {
      switch (e.op) {
        case 'put':
          byId.set(e.m.messageId, { ...e.m });
          unanswered.delete(e.m.messageId);
          break;
        case 'recv': {
          const m = byId.get(e.id);
          if (m) {
            m.receiveCount = e.receiveCount;
            m.firstReceivedAt ??= e.at;
            unanswered.add(e.id);
          }
          break;
        }
        case 'retry': {
          const m = byId.get(e.id);
          if (m) {
            m.visibleAt = e.visibleAt;
            m.lastError = e.lastError;
          }
          unanswered.delete(e.id);
          break;
        }
        case 'del':
          byId.delete(e.id);
          unanswered.delete(e.id);
          break;
        case 'dlq':
          dead.set(e.d.messageId, e.d);
          break;
        case 'undlq':
          dead.delete(e.id);
          break;
      }
    }
    return { messages: [...byId.values()], dead: [...dead.values()], unanswered };
  }

  /** Replaces the entries with the current state (compaction). */
  snapshot(messages: readonly StoredMessage[], dead: readonly DeadLetter[]): void {
    this.journal.rewrite([
      ...messages.map((m): JournalEntry => ({ op: 'put', m })),
      ...dead.map((d): JournalEntry => ({ op: 'dlq', d })),
    ]);
  }
}
