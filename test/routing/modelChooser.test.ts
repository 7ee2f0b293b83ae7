import { describe, expect, it } from 'vitest';
import { OpenAIModel } from '../../src/llm/index.js';
import { HashedNgramEmbedder } from '../../src/memory/embedding/hashedNgramEmbedder.js';
import { HybridRouter, type RoutingCandidate, modelChooser } from '../../src/routing/index.js';
import { ScriptedModel, startOpenAICompatibleServer } from '../../src/testing.js';
import { cleanupAfterEach } from '../support/cleanupAfterEach.js';

// The model chooser through the real `openai` package against the local OpenAI-compatible server.

const later = cleanupAfterEach();
const roles: RoutingCandidate[] = [
  { id: 'role-a', name: 'ts-reviewer', fields: { name: 'ts-reviewer', description: 'Reviews TypeScript code.' } },
  { id: 'role-b', name: 'ts-writer', fields: { name: 'ts-writer', description: 'Writes TypeScript code.' } },
];
// A threshold no score reaches, so every request is below it and the chooser is asked.
const belowEverything = { threshold: 0.99, fastPath: null, modelChoice: { floor: 0, candidates: 2 } };
const embedder = new HashedNgramEmbedder();

describe('modelChooser', () => {
  it('asks the model to pick among the closest and takes the name it answers', async () => {
    const server = await startOpenAICompatibleServer();
    later(() => server.close());
    server.script({ text: 'ts-reviewer' });
    const model = new OpenAIModel({ apiKey: 'test', baseURL: server.baseURL, model: 'm' });
    const router = await HybridRouter.build(roles, belowEverything, { embedder, chooser: modelChooser(model) });
    const decision = await router.route('vet my TypeScript');
    expect(decision).toMatchObject({ method: 'model', chosen: { id: 'role-a', name: 'ts-reviewer' } });
    const asked = JSON.stringify(server.chatRequests[0]?.messages);
    expect(asked).toContain('vet my TypeScript');
    expect(asked).toContain('- ts-writer');
  });

  it('refuses when the model answers none, or a name that is not a candidate', async () => {
    const server = await startOpenAICompatibleServer();
    later(() => server.close());
    server.script({ text: 'none' }, { text: 'the poet' });
    const model = new OpenAIModel({ apiKey: 'test', baseURL: server.baseURL, model: 'm' });
    const router = await HybridRouter.build(roles, belowEverything, { embedder, chooser: modelChooser(model) });
    expect((await router.route('vet my TypeScript')).chosen).toBeNull();
    expect((await router.route('vet my TypeScript')).chosen).toBeNull();
  });

  it('never asks a scripted (offline) model', async () => {
    const scripted = new ScriptedModel([{ text: 'ts-reviewer' }]);
    const router = await HybridRouter.build(roles, belowEverything, { embedder, chooser: modelChooser(scripted) });
    expect((await router.route('vet my TypeScript')).chosen).toBeNull();
    expect(scripted.requests).toHaveLength(0);
  });
});
