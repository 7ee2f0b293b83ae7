import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChatRequest } from '../../src/llm/index.js';
import type { RuntimeOptions } from '../../src/runtime/index.js';
import { Actions } from '../../src/task/index.js';
import type { ToolResult } from '../../src/tools/index.js';
import { png, renderSteps, renderTool, rendered, report } from '../support/artifactSociety.js';
import { recordBus, quietRuntime } from '../support/runtimeFixture.js';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});
async function dataDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'troupe-artifacts-'));
  dirs.push(dir);
  return dir;
}

/** Runs one Task whose model calls `render` once and then answers; returns what the model was sent after the call. */
async function renderOnce(options: RuntimeOptions & { result?: ToolResult } = {}) {
  const { result = rendered, ...rest } = options;
  const { rt, model, logger } = await quietRuntime({
    tools: [renderTool(result)],
    steps: renderSteps(),
    ...rest,
  });
  const seen = recordBus(rt);
  const taskId = await rt.submit('render the report');
  const answer = await rt.waitForAnswer(taskId, { timeoutMs: 10_000 });
  const toolMessage = (model.requests[1] as ChatRequest).messages.find((message) => message.role === 'tool');
  return { rt, logger, seen, taskId, answer, toolText: toolMessage?.content ?? '' };
}

describe('artifacts of tool results', () => {
  it('are stored, shown to the model by reference with a bounded preview, and published with their metadata', async () => {
    const { rt, seen, taskId, answer, toolText } = await renderOnce({ artifactPreviewChars: 40 });
    expect(answer.status).toBe('completed');
    const refs = rt.artifacts(taskId);
    expect(refs.map(({ name, mediaType, size }) => [name, mediaType, size])).toEqual([
      ['report.txt', 'text/plain', report.length],
      ['chart.png', 'image/png', 8],
    ]);
    expect(rt.artifact(refs[0]?.id ?? '')?.content).toBe(report);
    expect(rt.artifact(refs[1]?.id ?? '')?.content).toEqual(png);

    // The model read the tool's text and references, never the whole report.
    expect(toolText.startsWith('rendered the report\n')).toBe(true);
    expect(toolText).not.toContain(report);
    expect(toolText.length).toBeLessThan(600);
    expect(toolText).toContain(
      JSON.stringify({ id: refs[0]?.id, name: 'report.txt', mediaType: 'text/plain', size: report.length, preview: `${report.slice(0, 40)}…` }),
    );
    expect(toolText).toContain(JSON.stringify({ id: refs[1]?.id, name: 'chart.png', mediaType: 'image/png', size: 8 }));

    const observed = seen.find((task) => task.action === Actions.toolResult);
    expect(observed).toMatchObject({
      to: 'observer',
      parentId: taskId,
      parameters: { tool: 'render', metadata: { pages: 3 }, artifacts: refs.map(({ id, name, mediaType, size }) => ({ id, name, mediaType, size })) },
    });
    await rt.shutdown();
  });

  it('are kept in the data dir, in the message log with their metadata, and across a restart', async () => {
    const dir = await dataDir();
    const first = await renderOnce({ dataDir: dir });
    const refs = first.rt.artifacts(first.taskId);
    expect(refs).toHaveLength(2);
    const logged = first.rt.messageLog(first.taskId)?.find((task) => task.action === Actions.toolResult);
    expect(logged?.parameters).toMatchObject({ metadata: { pages: 3 }, artifacts: [{ name: 'report.txt' }, { name: 'chart.png' }] });
    await first.rt.shutdown();

    const { rt } = await quietRuntime({ dataDir: dir });
    expect(rt.artifacts(first.taskId)).toEqual(refs);
    expect(rt.artifact(refs[0]?.id ?? '')?.content).toBe(report);
    expect(rt.artifact(refs[1]?.id ?? '')?.content).toEqual(png);
    await rt.shutdown();
  });

  it('past a limit are refused in the result the model reads, and the Task goes on', async () => {
    const { rt, answer, toolText, taskId } = await renderOnce({ maxArtifactBytes: 100 });
    expect(answer.status).toBe('completed');
    expect(toolText).toContain(
      `Not stored: artifact "report.txt" is ${report.length} bytes, past the limit of 100 bytes per artifact (maxArtifactBytes); not stored`,
    );
    expect(rt.artifacts(taskId).map((ref) => ref.name)).toEqual(['chart.png']);
    await rt.shutdown();
  });

  it('past the store limit evict the artifacts of the Task that ended first', async () => {
    const big = { content: 'made', artifacts: [{ name: 'big.txt', mediaType: 'text/plain', content: 'x'.repeat(600) }] };
    const { rt, model, logger } = await quietRuntime({
      tools: [renderTool(big)],
      maxArtifactStoreBytes: 1_000,
      steps: [{ toolCalls: [{ name: 'render', arguments: {} }] }, { text: 'one' }, { toolCalls: [{ name: 'render', arguments: {} }] }, { text: 'two' }],
    });
    const first = await rt.submit('first');
    await rt.waitForAnswer(first, { timeoutMs: 10_000 });
    const second = await rt.submit('second');
    await rt.waitForAnswer(second, { timeoutMs: 10_000 });
    expect(rt.artifacts(first)).toEqual([]);
    expect(rt.artifacts(second).map((ref) => ref.name)).toEqual(['big.txt']);
    expect(logger.entries.some((entry) => entry.message.startsWith('artifact store: evicted') && entry.fields['taskId'] === first)).toBe(true);
    expect(model.requests).toHaveLength(4);
    await rt.shutdown();
  });

  it('a malformed result becomes an error result naming the field', async () => {
    const bad = { content: 'x', artifacts: [{ name: 'a', mediaType: 'not a type', content: 'x' }] };
    const { rt, toolText } = await renderOnce({ result: bad });
    expect(toolText).toContain('render returned an invalid result: artifacts[0].mediaType: must be a media type like');
    await rt.shutdown();
  });
});
