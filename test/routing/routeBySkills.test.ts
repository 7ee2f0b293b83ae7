import { describe, expect, it } from 'vitest';
import { type Runtime, createRuntime } from '../../src/runtime/index.js';
import { defineSkill } from '../../src/skills/index.js';
import { Actions } from '../../src/task/index.js';
import { MemoryLogger, ScriptedModel } from '../../src/testing.js';
import { recordBus } from '../support/runtimeFixture.js';
import { lastToolResult, modelByRole } from '../support/scriptByRole.js';

// The router scores a role by the skills its policy names too: work described by what a skill
// does goes to the role that may use it, though no word of it is in the role's own text.

const changelog = defineSkill({ name: 'changelog', description: 'Drafts a changelog from the merged pull requests of a release.' });

async function society(root: ScriptedModel, writer: ScriptedModel): Promise<Runtime> {
  const rt = await createRuntime({ model: modelByRole({ root, clerk: writer }), logger: new MemoryLogger(), skills: [changelog] });
  await rt.createRole({ name: 'clerk', prompt: 'You help.', description: 'Handles paperwork.', tools: { skills: { allow: ['changelog'] } } });
  await rt.createRole({ name: 'poet', prompt: 'You write poems.', description: 'Writes poems and haiku.' });
  await rt.createRole({ name: 'tax-adviser', prompt: 'You advise on taxes.', description: 'Explains tax returns, deductions and VAT.' });
  return rt;
}

describe('routing by the skills a role may use', () => {
  it('sends work about a changelog to the role whose policy names the changelog skill, though its own text says nothing of it', async () => {
    const root = new ScriptedModel([
      { toolCalls: [{ name: 'delegate_task', arguments: { role: 'someone for the changelog of this release', task: 'draft it' } }] },
      (request) => ({ text: `done: ${JSON.stringify(lastToolResult(request))}` }),
    ]);
    const writer = new ScriptedModel([{ text: 'drafted' }]);
    const rt = await society(root, writer);
    const seen = recordBus(rt);
    const answer = await rt.waitForAnswer(await rt.submit('we need a changelog'), { timeoutMs: 10_000 });
    expect(answer.status).toBe('completed');
    const decision = seen.find((task) => task.action === Actions.routed)?.parameters['decision'] as { chosen: { name: string } | null };
    expect(decision.chosen?.name).toBe('clerk');
    writer.assertUsedUp();
    await rt.shutdown();
  });
});
