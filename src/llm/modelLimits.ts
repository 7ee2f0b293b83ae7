import { z } from 'zod';

/** The longest wait a timer can take (setTimeout's limit, about 24.8 days). */
const maxTimerMs = 2 ** 31 - 1;

/**
 * The bounds on one call of an OpenAI-compatible model: what an attempt may take, how long its
 * stream may be silent, and how large its reply may be. One schema gives the defaults, the checks
 * and the type; `modelFromEnv` feeds it the `TROUPE_MODEL_*` variables.
 */
export const ModelLimitsSchema = z.object({
  /** One attempt, from sending the request to the stream's last chunk (an embedding call: to its whole body). */
  timeoutMs: z.number().int().positive().max(maxTimerMs).default(300_000),
  /** Silence between two network reads of a streamed reply, from the response's headers on. */
  idleTimeoutMs: z.number().int().positive().max(maxTimerMs).default(60_000),
  /** Bytes of one streamed reply's body; a larger reply fails the call (and is not retried). */
  maxReplyBytes: z
    .number()
    .int()
    .positive()
    .default(32 * 1024 * 1024),
});

export type ModelLimits = z.infer<typeof ModelLimitsSchema>;

/** How a reply past `maxReplyBytes` fails, whichever reader finds it (a plain Error: not retried, the same request would bring the same reply). */
export function replyTooLarge(maxReplyBytes: number): Error {
  return new Error(`the reply is larger than ${maxReplyBytes} bytes (maxReplyBytes)`);
}
