import { type AnyEventObject, type CallbackActorLogic, type PromiseActorLogic, type PromiseActorRef, fromCallback, fromPromise } from 'xstate';

/** A named action the machine fired, with the params it resolved. */
export interface Effect {
  readonly type: string;
  readonly params: unknown;
}

/** An invoked actor the machine started, with the input it was given. */
export interface Invocation {
  readonly id: string;
  readonly input: unknown;
}

/** A done or error event of an invoked actor, as the graph traversal sends it. */
export type ActorSettlement =
  { readonly type: `xstate.done.actor.${string}`; readonly output?: unknown } | { readonly type: `xstate.error.actor.${string}`; readonly error: unknown };

interface Pending {
  readonly self: PromiseActorRef<unknown>;
  readonly resolve: (output: unknown) => void;
  readonly reject: (error: unknown) => void;
}

const settlementPattern = /^xstate\.(done|error)\.actor\.(.+)$/;

/** True for `xstate.done.actor.*` / `xstate.error.actor.*` events. */
export function isSettlement(event: { readonly type: string }): event is ActorSettlement {
  return settlementPattern.test(event.type);
}

/**
 * What a test supplies to a machine with `.provide()`: actions that record their name and
 * params, and promise actors that stay pending until the test settles them.
 *
 * XState 5.33 does accept `xstate.done.actor.*` events sent from outside (checked), but
 * settling the real invoked actor instead also proves the invocation is running in that
 * state, exercises its `input` mapping and lets XState build the done/error event itself.
 */
export class RecordingImplementations {
  readonly actions: Effect[] = [];
  readonly invoked: Invocation[] = [];
  readonly #pending = new Map<string, Pending>();

  /** An action implementation that records `{ type, params }`. */
  record(type: string): (_args: unknown, params: unknown) => void {
    return (_args, params) => {
      this.actions.push({ type, params });
    };
  }

  /** A promise actor that settles only when the test calls `settle` with its invoke id. */
  actor<TOutput, TInput>(): PromiseActorLogic<TOutput, TInput> {
    return fromPromise<TOutput, TInput>(({ input, self, signal }) => {
      this.invoked.push({ id: self.id, input });
      return new Promise<TOutput>((resolve, reject) => {
        const pending: Pending = {
          self,
          // The output comes from the model's event list, typed there; XState hands it on unchecked.
          resolve: (output) => resolve(output as TOutput),
          reject,
        };
        this.#pending.set(self.id, pending);
        signal.addEventListener('abort', () => {
          if (this.#pending.get(self.id) === pending) this.#pending.delete(self.id);
        });
      });
    });
  }

  /**
   * A callback actor that only records that it was invoked: the events it would send its parent
   * are the model's own events, sent to the machine by the test.
   */
  callback<TInput>(): CallbackActorLogic<AnyEventObject, TInput> {
    return fromCallback<AnyEventObject, TInput>(({ input, self }) => {
      this.invoked.push({ id: self.id, input });
    });
  }

  /** Resolves or rejects the running invoked actor the event names; throws if none is running. */
  settle(event: ActorSettlement): void {
    const [, kind, id = ''] = settlementPattern.exec(event.type) ?? [];
    const pending = this.#pending.get(id);
    if (pending?.self.getSnapshot().status !== 'active') {
      throw new Error(`the model sends ${event.type}, but no invoked actor '${id}' is running in the real actor`);
    }
    this.#pending.delete(id);
    if (kind === 'done') pending.resolve('output' in event ? event.output : undefined);
    else pending.reject('error' in event ? event.error : undefined);
  }
}

/** Lets promise callbacks and the events they send to the parent run to completion. */
export function settled(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
