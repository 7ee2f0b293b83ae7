import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SkillActions, defineSkill } from '../../src/skills/index.js';
import type { ChatRequest } from '../../src/llm/index.js';
import { defineTool } from '../../src/tools/index.js';
import { randomIds } from '../../src/ids.js';
import { tempDirsAfterEach } from '../support/cleanupAfterEach.js';
import { quietRuntime, recordBus } from '../support/runtimeFixture.js';

const tempDir = tempDirsAfterEach('troupe-skills-');

const fixtures = resolve(import.meta.dirname, '../fixtures/skills');
const haiku = defineSkill({
  name: 'haiku',
  description: 'Writes haiku. Use when asked for a haiku.',
  body: 'HAIKU-BODY: count five, seven, five syllables.',
  triggers: { keywords: ['haiku'] },
});

/** Everything the model was told before the conversation: the system messages of a request. */
function systemText(request: ChatRequest | undefined): string {
  return (request?.messages ?? [])
    .filter((message) => message.role === 'system')
    .map((message) => message.content)
    .join('\n');
}

describe('skills in a runtime', () => {
  it("lists every skill's name and description, and shows a body only once a trigger activated it", async () => {
    const { rt, model } = await quietRuntime({ skills: [fixtures, haiku], steps: [{ text: 'hello' }, { text: 'a haiku' }] });
    const seen = recordBus(rt);
    await rt.waitForAnswer(await rt.submit('hello there'), { timeoutMs: 5_000 });
    const before = systemText(model.requests[0]);
    expect(before).toContain('- pdf-processing: Extract text and tables from PDF files');
    expect(before).toContain('- haiku: Writes haiku. Use when asked for a haiku.');
    expect(before).not.toContain('HAIKU-BODY');
    expect(before).not.toContain('# PDF processing');
    expect(model.requests[0]?.tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['use_skill', 'read_skill_file']));

    await rt.waitForAnswer(await rt.submit('write a haiku about rain'), { timeoutMs: 5_000 });
    expect(systemText(model.requests[1])).toContain('Active skill haiku:\nHAIKU-BODY: count five, seven, five syllables.');
    expect(systemText(model.requests[1])).not.toContain('# PDF processing');
    const activated = seen.filter((task) => task.action === SkillActions.activated);
    expect(activated.map((task) => task.parameters)).toEqual([{ skill: 'haiku', by: 'keyword', agentId: 'root', sessionId: activated[0]?.sessionId }]);
    expect(activated[0]?.from).toBe('root');
    await rt.shutdown();
  });

  it('activates a skill the model asks for with use_skill, and reads its files through read_skill_file, confined to its folder', async () => {
    const { rt, model } = await quietRuntime({
      skills: [fixtures],
      steps: [
        { toolCalls: [{ name: 'use_skill', arguments: { name: 'pdf-processing' } }] },
        {
          toolCalls: [
            { name: 'read_skill_file', arguments: { skill: 'pdf-processing', path: 'references/REFERENCE.md' } },
            { name: 'read_skill_file', arguments: { skill: 'pdf-processing', path: '../../runtime/skills.test.ts' } },
          ],
        },
        { text: 'done' },
      ],
    });
    const seen = recordBus(rt);
    const answer = await rt.waitForAnswer(await rt.submit('get the tables out of report.pdf'), { timeoutMs: 5_000 });
    expect(answer.status).toBe('completed');
    expect(systemText(model.requests[0])).not.toContain('# PDF processing');
    expect(systemText(model.requests[1])).toContain('Active skill pdf-processing:\n# PDF processing');
    const results = model.requests[2]?.messages.filter((message) => message.role === 'tool').map((message) => message.content);
    expect(results?.[0]).toContain('"active":true');
    // Each call's result is fed back as soon as it is in, so they are compared in sorted order.
    expect(results?.slice(1).sort()).toEqual([
      expect.stringContaining('pdfplumber') as string,
      expect.stringContaining('holds \\"..\\": only files inside the skill folder can be read') as string,
    ]);
    expect(seen.filter((task) => task.action === SkillActions.activated).map((task) => task.parameters['by'])).toEqual(['use_skill']);
    await rt.shutdown();
  });

  it('publishes a deactivation when the model lets a skill go and when one more is activated than a session may hold', async () => {
    const one = defineSkill({ name: 'one', description: 'One.', body: 'ONE' });
    const two = defineSkill({ name: 'two', description: 'Two.', body: 'TWO' });
    const { rt, model } = await quietRuntime({
      skills: [one, two],
      skillLimits: { maxActivePerSession: 1 },
      steps: [
        { toolCalls: [{ name: 'use_skill', arguments: { name: 'one' } }] },
        { toolCalls: [{ name: 'use_skill', arguments: { name: 'two' } }] },
        { toolCalls: [{ name: 'use_skill', arguments: { name: 'two', deactivate: true } }] },
        { text: 'done' },
      ],
    });
    const seen = recordBus(rt);
    await rt.waitForAnswer(await rt.submit('go'), { timeoutMs: 5_000 });
    const changes = seen
      .filter((task) => task.action === SkillActions.activated || task.action === SkillActions.deactivated)
      .map((task) => `${task.action} ${JSON.stringify(task.parameters['skill'])}`);
    expect(changes).toEqual(['skill.activated "one"', 'skill.activated "two"', 'skill.deactivated "one"', 'skill.deactivated "two"']);
    expect(systemText(model.requests[2])).toContain('TWO');
    expect(systemText(model.requests[2])).not.toContain('ONE');
    expect(systemText(model.requests[3])).not.toContain('Active skill');
    await rt.shutdown();
  });

  it("keeps a skill its role's policy denies out of its list, its triggers and use_skill", async () => {
    const { rt, model } = await quietRuntime({
      skills: [fixtures, haiku],
      root: { tools: { skills: { deny: ['haiku'] } } },
      steps: [{ toolCalls: [{ name: 'use_skill', arguments: { name: 'haiku' } }] }, { text: 'no' }],
    });
    await rt.waitForAnswer(await rt.submit('a haiku please'), { timeoutMs: 5_000 });
    expect(systemText(model.requests[0])).not.toContain('haiku:');
    expect(systemText(model.requests[0])).toContain('pdf-processing');
    expect(systemText(model.requests[1])).not.toContain('HAIKU-BODY');
    expect(model.requests[1]?.messages.at(-1)?.content).toContain('no skill named haiku is available to you');
    await rt.shutdown();
  });

  it('runs a skill of tool steps without any model call, serial and parallel, results passed by name', async () => {
    const upper = defineTool({
      name: 'upper',
      description: 'upper-cases',
      parameters: z.object({ text: z.string() }),
      execute: ({ text }) => Promise.resolve({ content: text.toUpperCase() }),
    });
    const count = defineTool({
      name: 'count',
      description: 'counts characters',
      parameters: z.object({ text: z.string() }),
      execute: ({ text }) => Promise.resolve({ content: String(text.length) }),
    });
    const shout = defineSkill({
      name: 'shout',
      description: 'Shouts the request back. Use when someone says shout.',
      triggers: { patterns: ['^shout\\b'] },
      tools: [upper, count],
      steps: [
        { name: 'loud', tool: 'upper', arguments: { text: '{{task}}' } },
        {
          parallel: [
            { name: 'size', tool: 'count', arguments: { text: '{{loud}}' } },
            { name: 'again', tool: 'upper', arguments: { text: 'ok {{loud}}' } },
          ],
          join: 'both',
        },
      ],
      result: '{{again}} ({{size}} characters)',
    });
    const { rt, model } = await quietRuntime({ skills: [shout] });
    const answer = await rt.waitForAnswer(await rt.submit('shout hello'), { timeoutMs: 5_000 });
    expect(answer.result).toEqual({ text: 'OK SHOUT HELLO (11 characters)' });
    expect(model.requests).toHaveLength(0);
    await rt.shutdown();
  });

  it("shows the model a tool only skills bring once one of them is active in the session, and only there; the society's own tools always", async () => {
    const convert = defineTool({
      name: 'convert',
      description: 'converts units',
      parameters: z.object({ value: z.number() }),
      execute: ({ value }) => Promise.resolve({ content: String(value * 2.54) }),
    });
    const measure = defineTool({ name: 'measure', description: 'measures', parameters: z.object({}), execute: () => Promise.resolve({ content: '3' }) });
    const units = defineSkill({ name: 'units', description: 'Converts units. Use for inches and centimetres.', tools: [convert, measure] });
    const { rt, model } = await quietRuntime({
      skills: [units],
      tools: [measure],
      steps: [
        // A model that calls the hidden tool anyway is told it has no such tool.
        { toolCalls: [{ name: 'convert', arguments: { value: 1 } }] },
        { toolCalls: [{ name: 'use_skill', arguments: { name: 'units' } }] },
        { toolCalls: [{ name: 'convert', arguments: { value: 2 } }] },
        { text: '5.08 cm' },
        { text: 'other session' },
      ],
    });
    const first = await rt.waitForAnswer(await rt.submit('two inches in cm?'), { timeoutMs: 5_000 });
    expect(first.result).toEqual({ text: '5.08 cm' });
    const names = (index: number) => model.requests[index]?.tools.map((tool) => tool.name) ?? [];
    expect(names(0)).not.toContain('convert');
    expect(names(0)).toContain('measure');
    const refused = model.requests[1]?.messages.findLast((message) => message.role === 'tool')?.content ?? '';
    expect(JSON.parse(refused)).toMatchObject({ error: expect.stringMatching(/^unknown tool "convert"/) as unknown });
    expect(names(2)).toContain('convert');
    expect(model.requests[3]?.messages.findLast((message) => message.role === 'tool')?.content).toBe('5.08');
    await rt.waitForAnswer(await rt.submit('hello'), { timeoutMs: 5_000 });
    expect(names(4)).not.toContain('convert');
    expect(names(4)).toContain('measure');
    await rt.shutdown();
  });

  it('fails the Task of a steps skill whose step fails, naming the step', async () => {
    const broken = defineTool({
      name: 'broken',
      description: 'always fails',
      parameters: z.object({}),
      execute: () => Promise.reject(new Error('the disk is full')),
    });
    const save = defineSkill({
      name: 'save',
      description: 'Saves.',
      triggers: { keywords: ['save'] },
      tools: [broken],
      steps: [{ name: 'write-file', tool: 'broken' }],
    });
    const { rt, model } = await quietRuntime({ skills: [save] });
    const answer = await rt.waitForAnswer(await rt.submit('save it'), { timeoutMs: 5_000 });
    expect(answer.status).toBe('failed');
    expect(answer.error?.message).toContain('skill save: step write-file (tool broken) failed');
    expect(answer.error?.message).toContain('the disk is full');
    expect(model.requests).toHaveLength(0);
    await rt.shutdown();
  });

  it('loads the good skills and lists the problems of the bad ones', async () => {
    const { rt, logger } = await quietRuntime({ skills: [fixtures, resolve(fixtures, 'missing-skill'), haiku, haiku] });
    expect(rt.skills.registry.list().map((skill) => skill.name)).toEqual(['house-rules', 'pdf-processing', 'haiku']);
    expect(rt.skillProblems.map((problem) => [problem.field, problem.rule])).toEqual([
      ['(folder)', 'does not exist'],
      ['name', 'a skill named haiku is already loaded'],
    ]);
    expect(logger.entries.filter((entry) => entry.message.startsWith('skill refused:'))).toHaveLength(2);
    await rt.shutdown();
  });

  it('lists only the skills that fit in catalogueShare of the context budget, counting the rest', async () => {
    const many = Array.from({ length: 40 }, (_, i) => defineSkill({ name: `skill-${i}`, description: `Does task number ${i} of a long list of tasks.` }));
    const { rt, model } = await quietRuntime({
      skills: many,
      skillLimits: { catalogueShare: 0.01 },
      memory: { context: { tokens: 8_000 } },
      steps: [{ text: 'ok' }],
    });
    await rt.waitForAnswer(await rt.submit('hello'), { timeoutMs: 5_000 });
    const listed = systemText(model.requests[0])
      .split('\n')
      .filter((line) => line.startsWith('- skill-'));
    expect(listed.length).toBeGreaterThan(0);
    expect(listed.length).toBeLessThan(40);
    expect(systemText(model.requests[0])).toContain(`- … and ${40 - listed.length} more skills not listed here (ask use_skill by name)`);
    await rt.shutdown();
  });

  it('refuses a bad skill limit, naming it', async () => {
    await expect(quietRuntime({ skillLimits: { maxActivePerSession: 0 } })).rejects.toThrow(/^skillLimits\.maxActivePerSession: /);
  });
});

describe('active skills across a restart', () => {
  it('with a data dir, a session resumed after a restart has the skills it had active; another session has none', async () => {
    const dataDir = await tempDir();
    const first = await quietRuntime({ dataDir, ids: randomIds, skills: [haiku], steps: [{ text: 'a haiku' }] });
    const answered = await first.rt.waitForAnswer(await first.rt.submit('write a haiku about rain'), { timeoutMs: 5_000 });
    const { sessionId } = answered;
    expect(first.rt.skills.active('root', sessionId).map((skill) => skill.name)).toEqual(['haiku']);
    await first.rt.shutdown();

    const again = await quietRuntime({ dataDir, ids: randomIds, skills: [haiku], steps: [{ text: 'another' }, { text: 'hello' }] });
    await again.rt.waitForAnswer(await again.rt.submit('and another one', { sessionId }), { timeoutMs: 5_000 });
    expect(systemText(again.model.requests[0])).toContain('Active skill haiku:\nHAIKU-BODY');
    await again.rt.waitForAnswer(await again.rt.submit('hello there'), { timeoutMs: 5_000 });
    expect(systemText(again.model.requests[1])).not.toContain('HAIKU-BODY');
    await again.rt.shutdown();
  });
});
