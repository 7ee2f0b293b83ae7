import { z } from 'zod';
import { describeError } from '../../errors.js';
import { type Task, parseTask } from '../../task/index.js';
import { subjectOf } from './natsSubjects.js';

/**
 * What travels in a NATS message's payload: a Task and the id of this one sending of it. The id
 * lets a bus whose interests overlap (an agent's own Tasks and `*`) deliver a Task once, though
 * NATS hands it one copy per matching subscription. Versioned, so a newer wire format is refused
 * by name rather than misread.
 */
const WireMessageSchema = z
  .object({
    v: z.literal(1),
    id: z.string().min(1).max(64),
    task: z.unknown(),
  })
  .strict();

/** Why a message from the wire was dropped, as a word a summary can count by. */
export type MalformedKind = 'not_json' | 'not_troupe' | 'not_a_task' | 'wrong_subject';

/** A message as it arrived: a checked Task and its sending's id, or why it was dropped. */
export type ArrivedMessage =
  { readonly ok: true; readonly id: string; readonly task: Task } | { readonly ok: false; readonly kind: MalformedKind; readonly reason: string };

/** The payload for one sending of `task`. The Task is valid already (the bus checks every Task it sends). */
export function encodeWireMessage(id: string, task: Task): string {
  return JSON.stringify({ v: 1, id, task });
}

/**
 * Reads a payload from the wire, trusting nothing: JSON, the envelope, the Task's schema, and
 * that the subject it came on is the Task's own (a Task to `a` published on `b`'s subject is
 * forged or broken, and would reach a bus that never asked for it).
 */
export function decodeWireMessage(subject: string, society: string, payload: string): ArrivedMessage {
  let json: unknown;
  try {
    json = JSON.parse(payload);
  } catch (error) {
    return { ok: false, kind: 'not_json', reason: `not JSON (${describeError(error)})` };
  }
  const envelope = WireMessageSchema.safeParse(json);
  if (!envelope.success) {
    const issue = envelope.error.issues[0];
    return { ok: false, kind: 'not_troupe', reason: `not a troupe message: ${issue?.path.join('.') ?? ''} ${issue?.message ?? ''}`.trim() };
  }
  let task: Task;
  try {
    task = parseTask(envelope.data.task);
  } catch (error) {
    return { ok: false, kind: 'not_a_task', reason: `not a valid Task: ${describeError(error)}` };
  }
  const expected = subjectOf(task, society);
  if (expected !== subject) return { ok: false, kind: 'wrong_subject', reason: `the Task belongs on ${expected}` };
  return { ok: true, id: envelope.data.id, task };
}
