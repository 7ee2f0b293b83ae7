import { expect } from 'vitest';
import { z } from 'zod';
import { type Runtime, type RuntimeOptions, createRuntime } from '../../src/runtime/index.js';
import { type ErrorCode, TroupeError } from '../../src/errors.js';
import { type ScriptStep, MemoryLogger, ScriptedModel, sequentialIds } from '../../src/testing.js';
import { Actions, type Task } from '../../src/task/index.js';
import { defineTool, jsonResult } from '../../src/tools/index.js';

/** A quiet runtime with deterministic ids; the model is a ScriptedModel unless one is given. */
export async function quietRuntime(options: RuntimeOptions & { steps?: readonly ScriptStep[] } = {}): Promise<{
  rt: Runtime;
  model: ScriptedModel;
  logger: MemoryLogger;
}> {
  const { steps, ...rest } = options;
  const model = new ScriptedModel(steps ?? []);
  const logger = new MemoryLogger();
  const rt = await createRuntime({ model, logger, ids: sequentialIds(), ...rest });
  return { rt, model, logger };
}

/** `n` copies of a step that always answers `text` (a script long enough for any run). */
export function answers(n: number, text = 'ok'): ScriptStep[] {
  return Array.from({ length: n }, () => ({ text }));
}

/** Every Task the bus delivers from now on, in delivery order. */
export function recordBus(rt: Runtime): Task[] {
  const seen: Task[] = [];
  rt.bus.on('*').subscribe((task) => seen.push(task));
  return seen;
}

/** One turn of the event loop: every promise and I/O callback queued so far gets to run. */
export function tick(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Yields to the event loop until `condition` holds (no real sleeps); fails once both `limit` turns
 * and 10 s have passed: a condition waiting on the disk (an fsync) takes many turns on a loaded machine.
 */
export async function until(condition: () => boolean, what: string, limit = 2_000): Promise<void> {
  const deadline = performance.now() + 10_000;
  for (let i = 0; i < limit || performance.now() < deadline; i++) {
    if (condition()) return;
    await tick();
  }
  throw new Error(`timed out waiting for ${what}`);
}

/**
 * Starts a spawn and runs `whileSpawning` with the new agent's id before awaiting it, while the
 * agent is still in `spawning`: it leaves that state a few microtasks after it starts, so awaiting
 * the spawn first would be too late. Relies on `rt.spawn` creating the agent (and publishing its
 * `agent.spawned` notice) before it returns its promise, which holds while intake does no I/O;
 * it fails loudly, not silently, if that changes.
 */
export async function duringSpawn<T>(
  rt: Runtime,
  input: { role: string; parent?: string },
  whileSpawning: (agentId: string) => T,
): Promise<{ agentId: string; result: T }> {
  let created: string | undefined;
  const subscription = rt.bus.on(Actions.spawned).subscribe((task) => {
    created ??= task.from;
  });
  const spawning = rt.spawn(input);
  subscription.unsubscribe();
  if (created === undefined) {
    await spawning;
    throw new Error('the agent did not exist when spawn returned its promise');
  }
  expect(rt.agent(created)?.state).toBe('spawning');
  const result = whileSpawning(created);
  expect(await spawning).toBe(created);
  return { agentId: created, result };
}

/** Runs `action` and returns the TroupeError code it threw, or null when it returned. */
export function thrownCode(action: () => unknown): ErrorCode | null {
  try {
    action();
    return null;
  } catch (error) {
    expect(error).toBeInstanceOf(TroupeError);
    return (error as TroupeError).code;
  }
}

/** The TroupeError code a promise rejected with, or null when it resolved. */
export async function rejectedCode(promise: Promise<unknown>): Promise<ErrorCode | null> {
  try {
    await promise;
    return null;
  } catch (error) {
    expect(error).toBeInstanceOf(TroupeError);
    return (error as TroupeError).code;
  }
}

/** A tool that takes a few turns of the event loop, so a turn spans several async steps. */
export const waitTicksTool = defineTool({
  name: 'wait_ticks',
  description: 'Waits for a number of event-loop turns.',
  parameters: z.object({ ticks: z.number().int().nonnegative().max(20) }),
  execute: async ({ ticks }) => {
    for (let i = 0; i < ticks; i++) await tick();
    return jsonResult({ waited: ticks });
  },
});

/** A trivial tool that echoes its input. */
export const echoTool = defineTool({
  name: 'echo',
  description: 'Echoes its text.',
  parameters: z.object({ text: z.string() }),
  execute: ({ text }) => Promise.resolve(jsonResult({ text })),
});

/** Agent ids as the runtime accepts them (`AgentIdSchema`). */
export const validAgentId = /^[A-Za-z0-9_-]{1,64}$/;
