import { z } from 'zod';
import { compressContext } from './societyServices.js';
import { defineTool, jsonResult } from './tool.js';

/** Recent messages `compress_context` keeps when the model does not say. */
const defaultKeepRecent = 10;

/**
 * Lets an agent shorten its own conversation in the session of the turn calling it (other sessions' stay as they are): the system prompt, the model's summary and the
 * last `keepRecent` messages stay; the step making this call and its result stay after them.
 */
export const compressContextTool = defineTool({
  name: 'compress_context',
  description:
    'Shorten your own conversation when it gets long: keeps your system prompt, your summary of everything earlier, ' +
    'and the most recent messages. Put every fact, decision and open task you still need into the summary.',
  parameters: z.object({
    summary: z.string().min(1).max(20_000).regex(/\S/, 'must not be blank').describe('What matters from the conversation so far'),
    keepRecent: z.number().int().nonnegative().max(10_000).default(defaultKeepRecent).describe('How many recent messages to keep verbatim, default 10'),
  }),
  execute: (args, { agentId, task, society }) =>
    Promise.resolve(jsonResult(compressContext(society, { agentId, sessionId: task.sessionId, summary: args.summary, keepRecent: args.keepRecent }))),
});
