import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { z } from 'zod';
import { defineTool } from '../../src/index.js';
import { jsonResult } from '../../src/tools/index.js';

/** The marks a ledger holds, one per completed `tally` call, in order. */
export function ledgerMarks(path: string): string[] {
  return existsSync(path)
    ? readFileSync(path, 'utf8')
        .split('\n')
        .filter((line) => line !== '')
    : [];
}

/**
 * A tool with an effect outside the process, so a test can count its executions across a
 * kill -9: each completed call appends its mark to `ledger`. With `hang`, a call writes its
 * mark to `<ledger>.started` and never completes (the process is killed while it runs).
 */
export function tallyTool(ledger: string, options: { hang?: boolean } = {}) {
  return defineTool({
    name: 'tally',
    description: 'Records one tally mark.',
    parameters: z.object({ mark: z.string() }),
    execute: async ({ mark }) => {
      if (options.hang === true) {
        appendFileSync(`${ledger}.started`, `${mark}\n`);
        await new Promise<never>(() => undefined);
      }
      appendFileSync(ledger, `${mark}\n`);
      return jsonResult({ marked: mark });
    },
  });
}

/**
 * A tool that only looks, for tests of durability by annotation: each completed call appends its
 * mark to `ledger`, so a test can count its executions across a kill -9. Annotated read-only with
 * `readOnly`, else left to MCP's defaults (it changes the world, destructively).
 */
export function peekTool(ledger: string, options: { readOnly: boolean }) {
  return defineTool({
    name: 'peek',
    description: 'Looks at the tallies.',
    parameters: z.object({ mark: z.string() }),
    ...(options.readOnly ? { annotations: { readOnly: true } } : {}),
    execute: async ({ mark }) => {
      appendFileSync(ledger, `${mark}\n`);
      return jsonResult({ seen: mark });
    },
  });
}
