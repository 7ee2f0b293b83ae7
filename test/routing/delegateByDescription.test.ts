import { describe, expect, it } from 'vitest';
import { formatTask } from '../../src/cli/formatTask.js';
import { type Runtime, createRuntime } from '../../src/runtime/index.js';
import { Actions, type Task } from '../../src/task/index.js';
import { MemoryLogger, ScriptedModel } from '../../src/testing.js';
import { tempDirsAfterEach } from '../support/cleanupAfterEach.js';
import { recordBus } from '../support/runtimeFixture.js';
import { lastToolResult, modelByRole } from '../support/scriptByRole.js';

// delegate_task given a role or a plain description instead of an agent id, end to end over the
// real runtime, its org store and scripted models (one script per role).

const tempDir = tempDirsAfterEach('troupe-routing-');

async function society(root: ScriptedModel, reviewer: ScriptedModel, dataDir: string): Promise<Runtime> {
  const rt = await createRuntime({ model: modelByRole({ root, 'ts-reviewer': reviewer }), logger: new MemoryLogger(), dataDir });
  await rt.createRole({ name: 'ts-reviewer', prompt: 'You review code.', description: 'Reviews TypeScript code and pull requests for bugs and style.' });
  await rt.createRole({ name: 'poet', prompt: 'You write poems.', description: 'Writes poems and haiku.' });
  await rt.createRole({ name: 'tax-adviser', prompt: 'You advise on taxes.', description: 'Explains tax returns, deductions and VAT.' });
  return rt;
}

const delegate = (role: string) => ({ toolCalls: [{ name: 'delegate_task', arguments: { role, task: 'review src/index.ts' } }] });
const routed = (seen: readonly Task[]): Task[] => seen.filter((task) => task.action === Actions.routed);

describe('delegate_task by description', () => {
  it('routes a plain description to a role, spawns an agent of it, and records why on the bus, in the work and in the message log', async () => {
    const root = new ScriptedModel([
      delegate('someone who can review TypeScript'),
      (request) => ({ text: `done: ${JSON.stringify(lastToolResult(request))}` }),
    ]);
    const reviewer = new ScriptedModel([{ text: 'LGTM' }]);
    const rt = await society(root, reviewer, await tempDir());
    const seen = recordBus(rt);
    const taskId = await rt.submit('get my TypeScript reviewed');
    const answer = await rt.waitForAnswer(taskId, { timeoutMs: 10_000 });

    expect(answer.status).toBe('completed');
    const [record] = routed(seen);
    const decision = record?.parameters['decision'] as { method: string; chosen: { name: string }; candidates: { name: string; score: number }[] };
    expect(decision.chosen.name).toBe('ts-reviewer');
    expect(['keyword', 'hybrid']).toContain(decision.method);
    expect(decision.candidates[0]).toMatchObject({ name: 'ts-reviewer' });
    const agentId = record?.parameters['agentId'] as string;
    expect(record).toMatchObject({ from: 'root', to: 'root', parentId: taskId, parameters: { spawned: true } });
    expect(rt.agent(agentId)).toMatchObject({ roleName: 'ts-reviewer', parentAgentId: 'root' });
    // The work itself carries the decision, and the tool's result says where it went.
    const work = seen.find((task) => task.action === Actions.execute && task.to === agentId && task.status === 'submitted');
    expect(work?.metadata['routing']).toEqual(decision);
    expect(lastToolResult(root.requests[1] ?? { messages: [], tools: [] })).toMatchObject({ agentId, status: 'completed', result: 'LGTM' });
    // `troupe messages` reads the message log: the line says why.
    const log = rt.messageLog(taskId) ?? [];
    const line = log.filter((task) => task.action === Actions.routed).map(formatTask)[0];
    expect(line).toMatch(new RegExp(`root → root\\s+routing\\.decided\\s+${decision.method} → ${agentId}: ts-reviewer [\\d.]+ ≥ [\\d.]+, spawned$`));
    expect(log.find((task) => task.action === Actions.routed)?.parameters['reason']).toMatch(/ts-reviewer scored/);
    reviewer.assertUsedUp();
    await rt.shutdown();
  });

  it('reuses an idle agent of the chosen role instead of spawning another, and takes a role named exactly', async () => {
    const root = new ScriptedModel([delegate('a reviewer for my TypeScript pull requests'), { text: 'one' }, delegate('ts-reviewer'), { text: 'two' }]);
    const reviewer = new ScriptedModel([{ text: 'first' }, { text: 'second' }]);
    const rt = await society(root, reviewer, await tempDir());
    const seen = recordBus(rt);
    await rt.waitForAnswer(await rt.submit('review it'), { timeoutMs: 10_000 });
    await rt.waitForAnswer(await rt.submit('review it again'), { timeoutMs: 10_000 });

    const [first, second] = routed(seen);
    expect(first?.parameters).toMatchObject({ spawned: true });
    expect(second?.parameters).toMatchObject({ spawned: false, agentId: first?.parameters['agentId'], decision: { method: 'exact' } });
    expect(rt.agents().filter((agent) => agent.roleName === 'ts-reviewer')).toHaveLength(1);
    await rt.shutdown();
  });

  it('sends nothing when no role fits: the model reads a no_route error, and the refusal is recorded', async () => {
    const root = new ScriptedModel([
      delegate('someone to bake a sourdough loaf for the wedding'),
      (request) => ({ text: JSON.stringify(lastToolResult(request)) }),
    ]);
    const rt = await society(root, new ScriptedModel([]), await tempDir());
    const seen = recordBus(rt);
    const taskId = await rt.submit('bread please');
    const answer = await rt.waitForAnswer(taskId, { timeoutMs: 10_000 });

    const result = lastToolResult(root.requests[1] ?? { messages: [], tools: [] });
    expect(result['code']).toBe('no_route');
    expect(result['error']).toMatch(/no role fits .*below the threshold/);
    expect(answer.status).toBe('completed');
    const [record] = routed(seen);
    expect(record?.parameters).toMatchObject({ agentId: null, decision: { method: 'none', chosen: null } });
    expect(formatTask(record as Task)).toMatch(/routing\.decided\s+none → nowhere: best [\w-]+ [\d.]+ < 0\.15$/);
    expect(rt.agents().map((agent) => agent.id)).toEqual(['root']);
    expect(seen.some((task) => task.action === Actions.execute && task.from === 'root' && task.to !== 'user')).toBe(false);
    await rt.shutdown();
  });

  it('refuses a call that names both an agent and a role, or neither', async () => {
    const both = { toolCalls: [{ name: 'delegate_task', arguments: { agentId: 'root', role: 'poet', task: 'x' } }] };
    const root = new ScriptedModel([both, (request) => ({ text: JSON.stringify(lastToolResult(request)) })]);
    const rt = await society(root, new ScriptedModel([]), await tempDir());
    await rt.waitForAnswer(await rt.submit('go'), { timeoutMs: 10_000 });
    expect(JSON.stringify(lastToolResult(root.requests[1] ?? { messages: [], tools: [] }))).toMatch(/give exactly one of agentId and role/);
    await rt.shutdown();
  });
});
