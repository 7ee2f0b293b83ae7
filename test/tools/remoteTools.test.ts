import { expect, it } from 'vitest';
import { z } from 'zod';
import { systemClock } from '../../src/clock.js';
import { randomIds } from '../../src/ids.js';
import { MemoryLogger } from '../../src/logger.js';
import { createRuntime } from '../../src/runtime/index.js';
import { createTask } from '../../src/task/index.js';
import { defineTool, jsonResult, remoteTool, serveTools, toolCallAction } from '../../src/tools/index.js';
import type { ScriptStep } from '../../src/testing.js';
import { cleanupAfterEach } from '../support/cleanupAfterEach.js';
import { describeWithNatsServer, natsBusesAfterEach, natsServerForFile } from '../support/natsBus.js';
import { lastToolResult } from '../support/scriptByRole.js';
import { ReplyingModel } from '../support/workerModel.js';

const natsServer = natsServerForFile();
const natsBus = natsBusesAfterEach();
const later = cleanupAfterEach();
let societies = 0;

const addParameters = z.object({ a: z.number(), b: z.number() });
/** The tool as its provider runs it; the caller only declares it (same name, description, parameters). */
const add = defineTool({
  name: 'add',
  description: 'Adds two numbers.',
  parameters: addParameters,
  execute: ({ a, b }) => Promise.resolve(jsonResult({ sum: a + b })),
});

/** A runtime on one NATS connection whose agents call `add`, served on another connection (as by another node). */
async function society(steps: ScriptStep[], serve: { maxConcurrentCalls?: number; tools?: Parameters<typeof serveTools>[2] } = {}) {
  const name = `tools-${++societies}`;
  const callerBus = (await natsBus({ servers: natsServer().url, society: name })).bus;
  const provider = await natsBus({ servers: natsServer().url, society: name });
  const providerBus = provider.bus;
  const model = new ReplyingModel(() => steps.shift() ?? { text: 'no more steps' });
  const rt = await createRuntime({
    bus: callerBus,
    model,
    logger: new MemoryLogger(),
    tools: [remoteTool({ name: 'add', description: 'Adds two numbers.', parameters: addParameters, provider: 'calculator' })],
  });
  later(async () => {
    await rt.shutdown({ drainTimeoutMs: 0 });
  });
  const society = {
    bus: providerBus,
    ids: randomIds,
    clock: systemClock,
  } as unknown as Parameters<typeof serveTools>[3]['society'];
  const serving = serveTools(providerBus, 'calculator', serve.tools ?? [add], { society, clock: systemClock, logger: new MemoryLogger(), ...serve });
  later(async () => {
    serving.unsubscribe();
    await Promise.resolve();
  });
  // The provider's subscription is on the server before any call is sent: core NATS drops a message nobody is subscribed to yet.
  await provider.transport.flush();
  await rt.createRole({ name: 'adder', prompt: 'You add.', tools: { allow: ['add'] } });
  return { rt, model, providerBus };
}

describeWithNatsServer('tools served on another node (serveTools and remoteTool over a real nats-server)', () => {
  it("runs an agent's tool call on the provider and gives the model its result", async () => {
    const { rt, model } = await society([
      { toolCalls: [{ name: 'add', arguments: { a: 2, b: 40 } }] },
      (request) => ({ text: `sum ${JSON.stringify(lastToolResult(request))}` }),
    ]);
    const adder = await rt.spawn({ role: 'adder' });
    const answer = await rt.waitForAnswer(await rt.send(adder, 'add them'), { timeoutMs: 60_000 });
    expect(answer).toMatchObject({ status: 'completed', result: { text: 'sum {"sum":42}' } });
    // The model saw the remote tool like a local one.
    expect(model.requests[0]?.tools.map((tool) => tool.name)).toEqual(['add']);
  });

  it('checks the arguments against the declared schema before they leave, giving the model the error result', async () => {
    const { rt } = await society([
      { toolCalls: [{ name: 'add', arguments: { a: 'two', b: 40 } }] },
      (request) => ({ text: JSON.stringify(lastToolResult(request)) }),
    ]);
    const adder = await rt.spawn({ role: 'adder' });
    const answer = await rt.waitForAnswer(await rt.send(adder, 'add them'), { timeoutMs: 60_000 });
    // The caller checks arguments against the declared schema first: they never leave.
    expect(answer.result).toMatchObject({ text: expect.stringContaining('invalid arguments for add: a:') as unknown });
  });

  it('answers a malformed or unknown call from the wire with a clear failure, and refuses calls past maxConcurrentCalls', async () => {
    let release = (): void => undefined;
    const held = defineTool({
      name: 'slow',
      description: 'Waits.',
      parameters: z.object({}),
      execute: () =>
        new Promise((resolve) => {
          release = () => resolve(jsonResult({ done: true }));
        }),
    });
    const { providerBus } = await society([], { tools: [held], maxConcurrentCalls: 1 });
    const ask = (parameters: Record<string, unknown>) =>
      providerBus.request(
        createTask({ from: 'someone', to: 'calculator', action: toolCallAction, parameters: parameters as never }, { ids: randomIds, clock: systemClock }),
        { timeoutMs: 60_000 },
      );
    expect(await ask({ tool: 'slow' })).toMatchObject({ status: 'failed', error: { code: 'invalid_input' } });
    expect(await ask({ tool: 'nope', arguments: {} })).toMatchObject({
      status: 'completed',
      result: { isError: true, content: expect.stringContaining('unknown tool \\"nope\\"') as unknown },
    });
    const first = ask({ tool: 'slow', arguments: {} });
    expect(await ask({ tool: 'slow', arguments: {} })).toMatchObject({ status: 'failed', error: { code: 'mailbox_full' } });
    release();
    expect(await first).toMatchObject({ status: 'completed', result: { content: '{"done":true}' } });
  });
});
