import { z } from 'zod';
import { defineTool, jsonResult } from '../../src/tools/index.js';

/** `send_email`, a tool that needs a person's approval, and the addresses it ran with (in order); each run ends once `held` has. */
export function mailTool(held: Promise<void> = Promise.resolve()) {
  const runs: string[] = [];
  const tool = defineTool({
    name: 'send_email',
    description: 'sends an email',
    parameters: z.object({ to: z.email(), note: z.string().optional() }),
    needsApproval: true,
    execute: async ({ to }) => {
      runs.push(to);
      await held;
      return jsonResult({ sent: to });
    },
  });
  return { tool, runs };
}
