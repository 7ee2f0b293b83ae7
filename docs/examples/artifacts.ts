import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { createRuntime, defineTool } from 'troupe';
import { ScriptedModel } from 'troupe/testing';

// A tool that returns text for the model, metadata for observers, and two artifacts.
const renderReport = defineTool({
  name: 'render_report',
  description: 'Renders the quarterly report as CSV and a chart.',
  parameters: z.object({ quarter: z.string() }),
  execute: async ({ quarter }) => ({
    content: `Rendered the ${quarter} report.`,
    metadata: { quarter, rows: 2 },
    artifacts: [
      { name: `${quarter}.csv`, mediaType: 'text/csv', content: 'region,revenue\nnorth,120\nsouth,95\n' },
      { name: 'chart.png', mediaType: 'image/png', content: new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10]) },
    ],
  }),
});

// The scripted model calls the tool once, then answers: offline and deterministic.
const model = new ScriptedModel([{ toolCalls: [{ name: 'render_report', arguments: { quarter: 'q3' } }] }, { text: 'The report is ready.' }]);
const dataDir = await mkdtemp(join(tmpdir(), 'troupe-artifacts-example-'));
const rt = await createRuntime({ model, tools: [renderReport], dataDir, artifactPreviewChars: 40 });

const taskId = await rt.submit('Render the Q3 report');
await rt.waitForAnswer(taskId, { timeoutMs: 10_000 });

// Listed by session (the Task's id names its session), fetched by id.
for (const ref of rt.artifacts(taskId)) {
  const artifact = rt.artifact(ref.id);
  const shown = typeof artifact?.content === 'string' ? artifact.content.trim() : `${ref.size} bytes`;
  console.log(`${ref.id}  ${ref.name}  ${ref.mediaType}: ${shown}`);
}

// What the model read after the call: the tool's text and references, not the artifacts.
console.log(model.requests[1]?.messages.find((message) => message.role === 'tool')?.content);

await rt.shutdown();
await rm(dataDir, { recursive: true, force: true });
