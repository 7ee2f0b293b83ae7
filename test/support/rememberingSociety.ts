import { expect } from 'vitest';
import { OpenAIModel } from '../../src/llm/index.js';
import { type Runtime, type RuntimeOptions, createRuntime } from '../../src/runtime/index.js';
import { MemoryLogger, type OpenAICompatibleServer, sequentialIds } from '../../src/testing.js';

/** What `rememberingSociety` did: its runtime, the root's two sessions and the child it terminated. */
export interface RememberingSociety {
  readonly rt: Runtime;
  /** The first session: a haiku about rain, where root remembered two facts. */
  readonly rain: string;
  /** The second session: a haiku about snow. */
  readonly snow: string;
  /** A `keeper` spawned by the user, who remembered the door code in a session of its own, then was terminated. */
  readonly keeper: string;
}

/** The facts the society's agents remember, as the model asked. */
export const rememberedFacts = {
  likes: 'The user likes haiku about rain.',
  rainSession: 'This session is about the rain haiku.',
  doorCode: 'The door code is 1234.',
} as const;

async function answered(rt: Runtime, taskId: string): Promise<void> {
  expect((await rt.waitForAnswer(taskId, { timeoutMs: 30_000 })).status).toBe('completed');
}

/**
 * Gives a society something to remember, its model answering from the local OpenAI-compatible
 * server's script: root answers two sessions and remembers a fact for every session and one for
 * the first; a `keeper` agent remembers a door code and is terminated.
 */
export async function rememberThings(rt: Runtime, server: OpenAICompatibleServer): Promise<Omit<RememberingSociety, 'rt'>> {
  server.script(
    {
      toolCalls: [
        { name: 'remember', arguments: { text: rememberedFacts.likes, scope: 'agent', importance: 0.9 } },
        { name: 'remember', arguments: { text: rememberedFacts.rainSession } },
      ],
    },
    { text: 'Rain on the roof' },
  );
  const rain = await rt.submit('write a haiku about rain');
  await answered(rt, rain);
  server.script({ text: 'Snow on the hill' });
  const snow = await rt.submit('now one about snow');
  await answered(rt, snow);

  await rt.createRole({ name: 'keeper', prompt: 'You keep what you are told.' });
  const keeper = await rt.spawn({ role: 'keeper' });
  server.script({ toolCalls: [{ name: 'remember', arguments: { text: rememberedFacts.doorCode } }] }, { text: 'kept' });
  await answered(rt, await rt.send(keeper, 'keep the door code: 1234'));
  await rt.terminate(keeper, { by: 'user' });
  return { rain, snow, keeper };
}

/** A model calling the local OpenAI-compatible server through the real `openai` package. */
export function serverModel(server: OpenAICompatibleServer): OpenAIModel {
  return new OpenAIModel({ apiKey: 'test', baseURL: server.baseURL, model: 'remembering' });
}

/**
 * `rememberThings` on a new runtime with sequential ids (`t1`…, `keeper-1`), so what it left is
 * known by name. The caller shuts it down.
 */
export async function rememberingSociety(
  server: OpenAICompatibleServer,
  options: Omit<RuntimeOptions, 'model' | 'ids' | 'logger'> = {},
): Promise<RememberingSociety> {
  const rt = await createRuntime({ model: serverModel(server), ids: sequentialIds(), logger: new MemoryLogger(), ...options });
  return { rt, ...(await rememberThings(rt, server)) };
}
