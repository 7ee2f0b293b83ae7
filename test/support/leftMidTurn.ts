import { systemClock } from '../../src/clock.js';
import { sequentialIds } from '../../src/ids.js';
import { ScriptedModel } from '../../src/llm/index.js';
import { MemoryLogger } from '../../src/logger.js';
import { openOrgStore } from '../../src/org/index.js';
import { createRuntime } from '../../src/runtime/index.js';
import { Actions, type ChatMessage, type Task, createTask } from '../../src/task/index.js';

/**
 * Makes `dir` an organisation with a `worker` agent and one Task of the user's (`text`) waiting
 * for it, with the conversation `kept` says stored under the key it names: the store as a crash
 * mid-turn (or an older troupe) would leave it.
 */
export async function workerLeftMidTurn(
  dir: string,
  text: string,
  kept: (worker: string, task: Task) => { readonly key: string; readonly steps: readonly ChatMessage[] },
): Promise<{ worker: string; task: Task }> {
  const first = await createRuntime({ dataDir: dir, model: new ScriptedModel([]), logger: new MemoryLogger() });
  await first.createRole({ name: 'worker', prompt: 'You work.' });
  const worker = await first.spawn({ role: 'worker' });
  await first.shutdown();
  const task = createTask({ from: 'user', to: worker, action: Actions.execute, parameters: { text } }, { ids: sequentialIds(), clock: systemClock });
  const store = await openOrgStore({ dir });
  await store.appendMessage(task.id, task);
  await store.addWaiting(worker, task);
  const { key, steps } = kept(worker, task);
  await store.appendConversation(key, steps);
  await store.close();
  return { worker, task };
}
