import { z } from 'zod';

/**
 * How an agent is terminated: `drain` refuses new Tasks, lets the turn in progress finish and
 * works through the queued Tasks before releasing it (what is left at the drain deadline is
 * cancelled); `abort` stops the turn at once and cancels everything queued.
 */
export const TerminationModeSchema = z.enum(['drain', 'abort']);

export type TerminationMode = z.infer<typeof TerminationModeSchema>;
