import { z } from 'zod';
import { compressContext } from './societyServices.js';
import { defineTool, jsonResult } from './tool.js';

/** Recent messages `compress_context` keeps when the model does not say. */
const defaultKeepRecent = 10;

/**
 * Lets an agent shorten the steps of the turn calling it (what came before the turn is memory's,
 * fitted to the context budget; other sessions are untouched): the Task's prompt, the model's
 * summary and the last `keepRecent` steps stay; the step making this call and its result after them.
 */
export const compressContextTool = defineTool({
  name: 'compress_context',
  description:
    'Shorten your current task when its steps get long: keeps the task, your summary of the earlier steps, ' +
    'and the most recent messages. Put every fact, decision and open question you still need into the summary.',
  parameters: z.object({
    summary: z.string().min(1).max(20_000).regex(/\S/, 'must not be blank').describe('What matters from the steps so far'),
    keepRecent: z.number().int().nonnegative().max(10_000).default(defaultKeepRecent).describe('How many recent messages to keep verbatim, default 10'),
  }),
  // The steps it folds into the summary are gone from the turn.
  annotations: { destructive: true, openWorld: false },
  execute: (args, { agentId, task, society }) =>
    Promise.resolve(jsonResult(compressContext(society, { agentId, sessionId: task.sessionId, summary: args.summary, keepRecent: args.keepRecent }))),
});
