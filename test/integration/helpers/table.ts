/**
 * The requests beneath the store, for the few tests about what reaches DynamoDB itself: a store
 * over the local runtime's own client (`runtime.dynamo`) that records every command it sends.
 */
import { createStore } from '../../../shared/store/dynamo';
import type { Store } from '../../../shared/store/store';
import type { Json, LocalTestRuntime } from './local';

export interface SentCommand {
  /** The command's class name, e.g. `QueryCommand`. */
  readonly name: string;
  readonly input: Json;
}

/** A store over the runtime's table whose every command is recorded in `sent`, in order. */
export function recordingStore(rt: LocalTestRuntime): {
  readonly store: Store;
  readonly sent: SentCommand[];
} {
  const { db, tableName } = rt.runtime.dynamo;
  const sent: SentCommand[] = [];
  const recording = new Proxy(db, {
    get(target, prop, receiver) {
      if (prop !== 'send') return Reflect.get(target, prop, receiver);
      return (command: { constructor: { name: string }; input: Json }) => {
        sent.push({ name: command.constructor.name, input: command.input });
        return target.send(command as never);
      };
    },
  });
  return { store: createStore(recording, tableName), sent };
}
