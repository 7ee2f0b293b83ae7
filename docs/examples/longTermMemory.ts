import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRuntime } from 'troupe';
import { ScriptedModel } from 'troupe/testing';

// A model that stores a fact with the `remember` tool, then answers; a real model decides this itself.
const model = new ScriptedModel([
  { toolCalls: [{ name: 'remember', arguments: { text: 'The user prefers dark mode.', scope: 'agent', importance: 0.8 } }] },
  { text: 'Noted: dark mode.' },
]);

const dataDir = await mkdtemp(join(tmpdir(), 'troupe-l4-'));
const rt = await createRuntime({ model, dataDir, memory: { facts: { compressAbove: 1000, keepTopN: 800 } } });
const taskId = await rt.submit('I like dark mode, remember that.');
await rt.waitForAnswer(taskId, { timeoutMs: 30_000 });

// What root remembers: the L4 facts closest to a question, each with its similarity.
const view = await rt.memory('root', { search: 'which theme does the user like?', k: 3 });
for (const entry of view.entries) console.log(entry);

await rt.shutdown();
await rm(dataDir, { recursive: true, force: true });
