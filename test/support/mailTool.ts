import { z } from 'zod';
import { defineTool, jsonResult } from '../../src/tools/index.js';

/** `send_email`, a tool that needs a person's approval, and the addresses it ran with (in order). */
export function mailTool() {
  const runs: string[] = [];
  const tool = defineTool({
    name: 'send_email',
    description: 'sends an email',
    parameters: z.object({ to: z.email(), note: z.string().optional() }),
    needsApproval: true,
    execute: ({ to }) => {
      runs.push(to);
      return Promise.resolve(jsonResult({ sent: to }));
    },
  });
  return { tool, runs };
}
