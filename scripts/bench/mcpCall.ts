import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { z } from 'zod';
import { createRuntime, defineTool, randomIds, systemClock, taskText } from '../../src/index.js';
import { internalsOf } from '../../src/runtime/internals.js';
import { createTask } from '../../src/task/index.js';
import { runToolCall } from '../../src/tools/runToolCall.js';
import { ScriptedModel } from '../../src/testing.js';
import { sized } from './benchSize.js';
import { elapsedMs, median } from './measure.js';
import { startLineProcess } from './readyProcess.js';
import { type Row, duration } from './report.js';

// `warmup` calls before each timed run, on both sides alike: a service's calls run warm, and a few
// hundred calls after a cold start measure the JIT more than either side's path.
const schedule = sized({ blocks: 5, calls: 200, warmup: 200 }, { blocks: 1, calls: 3, warmup: 1 });
const compiled = import.meta.url.endsWith('.js');
const worker = fileURLToPath(new URL(compiled ? 'mcpServerWorker.js' : 'mcpServerWorker.ts', import.meta.url));
/** How the runtime and the SDK's client start the stdio server. */
const stdioServer = { command: process.execPath, args: [...(compiled ? [] : ['--import', 'tsx']), worker] };

/** Milliseconds per call of `add` with the SDK's own client, `calls` in a row. */
async function direct(transport: Transport): Promise<number> {
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(transport);
  for (let i = 0; i < schedule.warmup; i++) await client.callTool({ name: 'add', arguments: { a: -i, b: 2 } });
  const start = process.hrtime.bigint();
  for (let i = 0; i < schedule.calls; i++) await client.callTool({ name: 'add', arguments: { a: i, b: 2 } });
  const ms = elapsedMs(start) / schedule.calls;
  await client.close();
  return ms;
}

/** The server's `add` as a local tool of the same name and annotations: the agent's step around a tool call, with no MCP in it. */
const localAdd = defineTool({
  name: 'bench__add',
  description: 'Adds two numbers.',
  parameters: z.object({ a: z.number(), b: z.number() }),
  annotations: { readOnly: true },
  execute: ({ a, b }) => Promise.resolve({ content: String(a + b) }),
});

/**
 * Milliseconds per step of one agent turn whose every step is one call of `bench__add` (the
 * scripted model answers at once): the MCP server's, or (`local`) the local tool's.
 */
async function throughAgent(server: { command: string; args: string[] } | { url: string } | 'local'): Promise<number> {
  // Arguments differ from call to call: the same call repeated is refused after `maxRepeatedToolCalls`.
  const call = (a: number) => ({ toolCalls: [{ name: 'bench__add', arguments: { a, b: 2 } }] });
  const warmup = Array.from({ length: schedule.warmup }, (_, i) => call(-1 - i));
  const model = new ScriptedModel([...warmup, { text: 'warm' }, ...Array.from({ length: schedule.calls }, (_, i) => call(i)), { text: 'done' }]);
  const rt = await createRuntime({
    model,
    maxSteps: Math.max(schedule.calls, schedule.warmup) + 5,
    ...(server === 'local' ? { tools: [localAdd] } : { mcpServers: { bench: { ...server, trusted: true, requireApproval: false } } }),
  });
  try {
    await rt.waitForAnswer(await rt.submit('warm up'), { timeoutMs: 60_000 });
    const start = process.hrtime.bigint();
    const answer = await rt.waitForAnswer(await rt.submit('add'), { timeoutMs: 600_000 });
    const ms = elapsedMs(start) / (schedule.calls + 1);
    // Every call made, or the figure means nothing.
    if (model.remaining !== 0 || taskText(answer) !== 'done') throw new Error(`the MCP bench turn ended early: ${JSON.stringify(answer.result)}`);
    return ms;
  } finally {
    await rt.shutdown();
  }
}

/**
 * Milliseconds per call of `bench__add` through troupe's tool runner, `calls` in a row: what a
 * turn does for each tool call (the arguments checked against the server's JSON Schema, the
 * timeout, the result converted, checked and redacted), without the agent's step around it.
 */
async function throughRunner(server: { command: string; args: string[] } | { url: string }): Promise<number> {
  const rt = await createRuntime({ mcpServers: { bench: { ...server, trusted: true, requireApproval: false } } });
  try {
    const context = {
      agentId: 'root',
      task: createTask({ from: 'user', to: 'root', action: 'execute', parameters: { text: 'add' } }, { ids: randomIds, clock: systemClock }),
      signal: new AbortController().signal,
      society: internalsOf(rt).society,
    };
    const options = { registry: rt.tools, defaultTimeoutMs: 60_000, clock: systemClock };
    const call = (a: number) => runToolCall({ id: `call-${a}`, name: 'bench__add', arguments: JSON.stringify({ a, b: 2 }) }, context, options);
    const warm = await call(-1);
    if (warm.isError === true) throw new Error(`the MCP bench call failed: ${warm.content}`);
    for (let i = 1; i < schedule.warmup; i++) await call(-1 - i);
    const start = process.hrtime.bigint();
    for (let i = 0; i < schedule.calls; i++) await call(i);
    return elapsedMs(start) / schedule.calls;
  } finally {
    await rt.shutdown();
  }
}

function runnerRow(transport: string, runner: readonly number[], sdk: readonly number[]): Row {
  const [troupe, raw] = [median(runner), median(sdk)];
  return {
    benchmark: `MCP tool call over ${transport}, through troupe's tool runner (per call)`,
    troupe: duration(troupe),
    raw: duration(raw),
    ratio: troupe / raw,
    notes: `${schedule.calls} calls in a row of the same read-only \`add\` with runToolCall, as a turn runs each tool call (arguments checked against the server's JSON Schema, timeout, result converted, checked and redacted), without the agent's step around it; against the SDK's Client directly; after ${schedule.warmup} warm-up calls on each side; medians of ${schedule.blocks} alternated blocks; goal ≤ 1.2×: ${troupe / raw <= 1.2 ? 'met' : 'NOT met'} in this run`,
  };
}

function row(transport: string, agent: readonly number[], sdk: readonly number[]): Row {
  const [troupe, raw] = [median(agent), median(sdk)];
  return {
    benchmark: `MCP tool call over ${transport}, through an agent (per step)`,
    troupe: duration(troupe),
    raw: duration(raw),
    ratio: troupe / raw,
    notes: `a turn of ${schedule.calls} steps, each one call of a read-only \`add\` (the scripted model answers at once, so the agent's step is counted in) against the same server called ${schedule.calls} times in a row with the SDK's Client, after ${schedule.warmup} warm-up calls on each side; medians of ${schedule.blocks} alternated blocks`,
  };
}

/** What an MCP call adds to an agent's step, over the same step calling a local tool: against the call with the SDK's client. */
function addedRow(transport: string, agent: readonly number[], local: readonly number[], sdk: readonly number[]): Row {
  const added = median(agent.map((ms, i) => ms - (local[i] ?? Number.NaN)));
  const raw = median(sdk);
  return {
    benchmark: `MCP tool call over ${transport}, what it adds to an agent's step (per call)`,
    troupe: duration(added),
    raw: duration(raw),
    ratio: added / raw,
    notes: `an agent's step calling the MCP server's \`add\` less the same step calling a local \`add\` (median of ${schedule.blocks} blocks' differences; the local step took ${duration(median(local))}): the call's own cost inside a turn, against the SDK's Client directly`,
  };
}

/** An MCP tool call through an agent against the same call with the SDK's client, over stdio and over Streamable HTTP. */
export async function mcpCall(): Promise<Row[]> {
  const http = await startLineProcess('mcpServerWorker', ['http']);
  const url = http.ready;
  const times = {
    localAgent: [] as number[],
    stdioAgent: [] as number[],
    stdioRunner: [] as number[],
    stdioSdk: [] as number[],
    httpAgent: [] as number[],
    httpRunner: [] as number[],
    httpSdk: [] as number[],
  };
  try {
    for (let block = 0; block < schedule.blocks; block++) {
      times.localAgent.push(await throughAgent('local'));
      times.stdioAgent.push(await throughAgent(stdioServer));
      times.stdioRunner.push(await throughRunner(stdioServer));
      times.stdioSdk.push(await direct(new StdioClientTransport({ ...stdioServer, stderr: 'ignore' })));
      times.httpAgent.push(await throughAgent({ url }));
      times.httpRunner.push(await throughRunner({ url }));
      times.httpSdk.push(await direct(new StreamableHTTPClientTransport(new URL(url))));
    }
  } finally {
    await http.stop();
  }
  return [
    row('stdio', times.stdioAgent, times.stdioSdk),
    addedRow('stdio', times.stdioAgent, times.localAgent, times.stdioSdk),
    runnerRow('stdio', times.stdioRunner, times.stdioSdk),
    row('Streamable HTTP', times.httpAgent, times.httpSdk),
    addedRow('Streamable HTTP', times.httpAgent, times.localAgent, times.httpSdk),
    runnerRow('Streamable HTTP', times.httpRunner, times.httpSdk),
  ];
}
