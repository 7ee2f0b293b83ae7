import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ScriptedModel, type ScriptStep } from '../../src/testing.js';
import type { ChatRequest } from '../../src/llm/index.js';
import { taskText } from '../../src/task/index.js';
import { defineTool, jsonResult } from '../../src/tools/index.js';
import { defineSkill } from '../../src/skills/index.js';
import type { Runtime, RuntimeOptions } from '../../src/runtime/index.js';
import { internalsOf } from '../../src/runtime/internals.js';
import type { Agent } from '../../src/runtime/agent/index.js';
import { echoTool, quietRuntime, rejectedCode } from '../support/runtimeFixture.js';
import { type RoleStep, roleOf, scriptByRole } from '../support/scriptByRole.js';
import { cleanupAfterEach, tempDirsAfterEach } from '../support/cleanupAfterEach.js';

// Seed 003's rules of a fractal society: a child inherits its parent's model, limits, tool policy
// and skills unless its spawn overrides them; it shares the tool registry and the bus; it owns its
// memory and its active skills. One test per rule.

const later = cleanupAfterEach();
const tempDir = tempDirsAfterEach('troupe-inherit-');

/** A model answering from a role's script, keeping the requests of each role. */
function scripted(scripts: Record<string, RoleStep[]>, name: string): ScriptedModel & { rolesAsked: () => string[] } {
  const script = scriptByRole(scripts);
  const steps: ScriptStep[] = Array.from({ length: 20 }, () => (request: ChatRequest) => script.reply(request));
  const model = new ScriptedModel(steps, { name });
  return Object.assign(model, { rolesAsked: () => model.requests.map(roleOf) });
}

async function runtime(options: RuntimeOptions & { steps?: readonly ScriptStep[] } = {}): Promise<Runtime> {
  const { rt } = await quietRuntime(options);
  later(async () => {
    await rt.shutdown({ drainTimeoutMs: 0 });
  });
  await rt.createRole({ name: 'parent', prompt: 'P.' });
  await rt.createRole({ name: 'child', prompt: 'C.' });
  return rt;
}

const agentOf = (rt: Runtime, agentId: string): Agent => {
  const agent = internalsOf(rt).society.agent(agentId);
  if (agent === undefined) throw new Error(`no live agent ${agentId}`);
  return agent;
};
const ask = async (rt: Runtime, agentId: string, text = 'go') => rt.waitForAnswer(await rt.send(agentId, text), { timeoutMs: 10_000 });

describe('a child inherits its parent settings unless its spawn overrides them', () => {
  it("uses its parent's model, also when the parent's model spawned it, and the one named at spawn instead", async () => {
    const small = scripted(
      { parent: [{ toolCalls: [{ name: 'spawn_agent', arguments: { role: 'child' } }] }, { text: 'spawned' }], child: [{ text: 'small child' }] },
      'small',
    );
    const big = scripted({ child: [{ text: 'big child' }] }, 'big');
    const rt = await runtime({ models: { small, big } });
    expect(await rejectedCode(rt.spawn({ role: 'child', model: 'huge' }))).toBe('invalid_input');

    const parent = await rt.spawn({ role: 'parent', model: 'small' });
    await ask(rt, parent);
    const child = rt.agents().find((agent) => agent.parentAgentId === parent);
    expect(child).toBeDefined();
    expect(taskText(await ask(rt, child?.id ?? ''))).toBe('small child');

    const overridden = await rt.spawn({ role: 'child', parent, model: 'big' });
    expect(taskText(await ask(rt, overridden))).toBe('big child');
    expect(small.rolesAsked()).toEqual(['parent', 'parent', 'child']);
    expect(big.rolesAsked()).toEqual(['child']);
  });

  it("stops at its parent's step limit, and at its own when its spawn sets one", async () => {
    const loop: RoleStep = { toolCalls: [{ name: 'echo', arguments: { text: 'again' } }] };
    const rt = await runtime({ tools: [echoTool], steps: [loop, loop, loop, { text: 'done in three' }] });
    const parent = await rt.spawn({ role: 'parent', limits: { maxSteps: 2 } });
    const child = await rt.spawn({ role: 'child', parent });
    const stopped = await ask(rt, child);
    expect(stopped.status).toBe('failed');
    expect(stopped.error?.code).toBe('step_limit');

    const roomier = await rt.spawn({ role: 'child', parent, limits: { maxSteps: 4 } });
    const done = await ask(rt, roomier);
    expect(taskText(done)).toBe('done in three');
  });

  it("is held to its parent's tool policy (its role's and its own), and to the one given at spawn instead", async () => {
    const { rt, model } = await quietRuntime({ steps: [{ text: 'a' }, { text: 'b' }] });
    later(async () => {
      await rt.shutdown({ drainTimeoutMs: 0 });
    });
    await rt.createRole({ name: 'parent', prompt: 'P.', tools: { deny: ['create_role'] } });
    await rt.createRole({ name: 'child', prompt: 'C.' });
    const parent = await rt.spawn({ role: 'parent', tools: { deny: ['spawn_agent'] } });
    const child = await rt.spawn({ role: 'child', parent });
    await ask(rt, child);
    const seen = model.requests[0]?.tools.map((tool) => tool.name) ?? [];
    expect(seen).toContain('delegate_task');
    expect(seen).not.toContain('spawn_agent');
    expect(seen).not.toContain('create_role');

    const freed = await rt.spawn({ role: 'child', parent, tools: { deny: [] } });
    await ask(rt, freed);
    expect(model.requests[1]?.tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['spawn_agent', 'create_role']));
  });

  it("may use its parent's skills, and those named at spawn instead", async () => {
    const rt = await runtime();
    const parent = await rt.spawn({ role: 'parent', skills: ['review'] });
    const child = await rt.spawn({ role: 'child', parent });
    const other = await rt.spawn({ role: 'child', parent, skills: ['translate'] });
    expect(agentOf(rt, child).settings.skills).toEqual(['review']);
    expect(agentOf(rt, other).settings.skills).toEqual(['translate']);
    expect(agentOf(rt, await rt.spawn({ role: 'child' })).settings.skills).toBeUndefined();
  });

  it("is held to the skills its parent may use: its parent's settings and its parent's role's policy", async () => {
    const skill = (name: string) => defineSkill({ name, description: `Does ${name} work. Use when asked to ${name}.` });
    const rt = await runtime({ skills: [skill('review'), skill('translate'), skill('summarise')] });
    await rt.createRole({ name: 'narrow', prompt: 'N.', tools: { skills: { deny: ['summarise'] } } });
    const parent = await rt.spawn({ role: 'parent', skills: ['review', 'summarise'] });
    const child = await rt.spawn({ role: 'child', parent });
    const hub = internalsOf(rt).society.agent(child)?.env.skills;
    expect(['review', 'translate', 'summarise'].filter((name) => hub?.mayUse(child, name))).toEqual(['review', 'summarise']);
    // A role's skill policy reaches its agents' children too.
    const narrow = await rt.spawn({ role: 'narrow' });
    const narrowChild = await rt.spawn({ role: 'child', parent: narrow });
    expect(['review', 'translate', 'summarise'].filter((name) => hub?.mayUse(narrowChild, name))).toEqual(['review', 'translate']);
  });
});

describe('what a child inherited is kept', () => {
  it('with a data dir, across a restart', async () => {
    const dataDir = await tempDir();
    const first = await runtime({ dataDir });
    const parent = await first.spawn({ role: 'parent', limits: { maxSteps: 2 }, tools: { deny: ['spawn_agent'] } });
    const child = await first.spawn({ role: 'child', parent });
    await first.shutdown({ drainTimeoutMs: 0 });
    const { rt: again } = await quietRuntime({ dataDir });
    later(async () => {
      await again.shutdown({ drainTimeoutMs: 0 });
    });
    const restored = internalsOf(again).society.startRestored(child);
    expect(restored?.settings.limits.maxSteps).toBe(2);
    expect(restored?.toolDefinitions('s1').map((tool) => tool.name)).not.toContain('spawn_agent');
  });
});

describe('a child shares the registries and the bus, and owns its memory and active skills', () => {
  it('shares the tool registry: a tool registered after it was spawned is offered to its model', async () => {
    const { rt, model } = await quietRuntime({ steps: [{ text: 'ok' }] });
    later(async () => {
      await rt.shutdown({ drainTimeoutMs: 0 });
    });
    await rt.createRole({ name: 'child', prompt: 'C.' });
    const child = await rt.spawn({ role: 'child', parent: 'root' });
    rt.tools.register(defineTool({ name: 'late_tool', description: 'x', parameters: z.object({}), execute: () => Promise.resolve(jsonResult({})) }));
    await ask(rt, child);
    expect(model.requests[0]?.tools.map((tool) => tool.name)).toContain('late_tool');
  });

  it("shares the bus: what it says is on the runtime's bus", async () => {
    const rt = await runtime({ steps: [{ text: 'heard' }] });
    const child = await rt.spawn({ role: 'child', parent: 'root' });
    expect(agentOf(rt, child).env.bus).toBe(rt.bus);
    const said: string[] = [];
    rt.bus.on('*').subscribe((task) => {
      if (task.from === child && task.status === 'completed') said.push(taskText(task));
    });
    await ask(rt, child);
    expect(said).toEqual(['heard']);
  });

  it("owns its memory: what it was told is not in its parent's", async () => {
    const rt = await runtime({ steps: [{ text: 'noted' }] });
    const parent = await rt.spawn({ role: 'parent' });
    const child = await rt.spawn({ role: 'child', parent });
    await ask(rt, child, 'a secret for the child');
    const childMemory = await rt.memory(child, { tier: 'l1' });
    const parentMemory = await rt.memory(parent, { tier: 'l1' });
    const texts = (view: typeof childMemory) => JSON.stringify(view.entries);
    expect(texts(childMemory)).toContain('a secret for the child');
    expect(texts(parentMemory)).not.toContain('a secret for the child');
  });

  it('owns its active skills: one its parent activates is not active in it', async () => {
    const review = defineSkill({ name: 'review', description: 'Reviews code. Use when asked for a review.', body: 'Read every line.' });
    const model = scripted({ parent: [{ toolCalls: [{ name: 'use_skill', arguments: { name: 'review' } }] }, { text: 'reviewing' }] }, 'm');
    const rt = await runtime({ skills: [review], model });
    const parent = await rt.spawn({ role: 'parent' });
    const child = await rt.spawn({ role: 'child', parent });
    const asked = await rt.send(parent, 'review this', { sessionId: 's1' });
    await rt.waitForAnswer(asked, { timeoutMs: 10_000 });
    expect(rt.skills.active(parent, 's1').map((skill) => skill.name)).toEqual(['review']);
    expect(rt.skills.active(child, 's1')).toEqual([]);
  });
});
