import type { JsonValue } from '../task/index.js';

/**
 * What a part of the runtime that takes a non-deterministic input (a person's decision, say)
 * uses to make it replayable, beside the clock, ids, model and tools a recording covers by itself.
 * While a run is recorded, `note` keeps a value under a kind and a key; in its replay, `take`
 * hands the values of that kind and key back in the order they were noted.
 *
 * @example
 * // Where a part of the runtime takes a person's input:
 * const given = tape?.take('approval', `${taskId}/${toolCallId}`);
 * const decision = given ?? (await askThePerson());
 * if (given === undefined && tape?.mode === 'replaying') tape.diverged(`no approval was recorded for ${toolCallId}`);
 * tape?.note('approval', `${taskId}/${toolCallId}`, decision);
 */
export interface RunTape {
  readonly mode: 'recording' | 'replaying';
  /** Records `value` (redacted like everything recorded); does nothing in a replay. */
  note(kind: string, key: string, value: JsonValue): void;
  /** In a replay, the next value noted under `kind` and `key`, or undefined when the run noted no more; always undefined while recording. */
  take(kind: string, key: string): JsonValue | undefined;
  /** In a replay, stops it with `replay_diverged` and `message` (the first divergence is the one reported); does nothing while recording. */
  diverged(message: string): void;
}

/** The kind of note a person's decision on an approval is kept as (keyed by the approval's id); a replay makes it again where the run made it. */
export const approvalNote = 'approval';

/** The key of a note's queue. */
export function noteKey(kind: string, key: string): string {
  return `${kind}\u0000${key}`;
}
