import { z } from 'zod';
import type { ScriptStep } from '../../src/testing.js';
import { type ToolResult, defineTool } from '../../src/tools/index.js';

/** A text artifact far longer than any preview. */
export const report = 'line of the report\n'.repeat(500);
/** A binary artifact: a PNG's signature. */
export const png = new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10]);

/** A result with metadata, a text artifact and a binary one. */
export const rendered: ToolResult = {
  content: 'rendered the report',
  metadata: { pages: 3 },
  artifacts: [
    { name: 'report.txt', mediaType: 'text/plain', content: report },
    { name: 'chart.png', mediaType: 'image/png', content: png },
  ],
};

/** A tool named `render` whose result is `result`. */
export function renderTool(result: ToolResult = rendered) {
  return defineTool({ name: 'render', description: 'Renders the report.', parameters: z.object({}), execute: () => Promise.resolve(result) });
}

/** A script for one Task: call `render`, then answer. */
export function renderSteps(): ScriptStep[] {
  return [{ toolCalls: [{ name: 'render', arguments: {} }] }, { text: 'done' }];
}
