import { z } from 'zod';
import { parseOrThrow } from '../task/index.js';
import { type Tool, defineTool } from '../tools/index.js';
import { A2aRemote, A2aRemoteSchema } from './a2aRemote.js';

/** A remote A2A agent as a tool (docs/a2a.md, "Delegating to a remote agent"). */
export const A2aAgentOptionsSchema = A2aRemoteSchema.extend({
  /** The remote's name: the tool is `a2a_<name>`, its local Tasks go to `a2a-<name>`. */
  name: z.string().regex(/^[a-z0-9_]{1,40}$/, 'must be 1–40 lower-case letters, digits or "_"'),
  /** What the model reads about when to use it. */
  description: z.string().min(1).max(1024).optional(),
}).strict();

export type A2aAgentOptions = z.input<typeof A2aAgentOptionsSchema>;

/**
 * A tool that gives work to a remote A2A agent (see `A2aRemote`): the model's task goes to the
 * remote, its progress on the local bus as the Task `a2a.delegate` to `a2a-<name>`, and the
 * remote's answer (and its artifacts) is the tool's result. Canceling the local turn (the agent
 * terminated, its Task canceled, the tool timed out) cancels the remote task.
 *
 * @example
 * const rt = await createRuntime({ tools: [a2aAgentTool({ name: 'reviewer', url: 'http://127.0.0.1:4000' })] });
 */
export function a2aAgentTool(input: A2aAgentOptions): Tool {
  const options = parseOrThrow(A2aAgentOptionsSchema, input, 'a2aAgent');
  const remote = new A2aRemote(options, 'a2aAgent.name');
  return defineTool({
    name: `a2a_${options.name}`,
    description: options.description ?? `Give a task to the remote agent "${options.name}" (A2A, ${options.url}) and wait for its answer.`,
    parameters: z.object({ task: z.string().min(1).max(100_000).describe('What the remote agent should do') }),
    // The delegation's own timeout governs; the tool's must not cut it short.
    timeoutMs: options.timeoutMs + 5_000,
    annotations: { readOnly: false, destructive: true, idempotent: false, openWorld: true },
    execute: ({ task }, context) => remote.run(task, context),
  });
}
