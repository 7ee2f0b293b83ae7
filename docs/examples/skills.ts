import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { ScriptedModel } from 'troupe/testing';
import { SkillActions, createRuntime, defineSkill, defineTool } from 'troupe';

// A skill folder as any Agent Skills client writes it, and troupe's triggers beside it.
const skills = await mkdtemp(join(tmpdir(), 'troupe-skills-example-'));
const folder = join(skills, 'release-notes');
await mkdir(join(folder, 'references'), { recursive: true });
await writeFile(
  join(folder, 'SKILL.md'),
  [
    '---',
    'name: release-notes',
    'description: Writes release notes from a list of changes. Use when asked for release notes.',
    '---',
    '',
    'Group the changes under Added, Changed and Fixed. See references/style.md.',
    '',
  ].join('\n'),
);
await writeFile(join(folder, 'references', 'style.md'), 'One line per change, in the past tense.\n');
await writeFile(join(folder, 'troupe.yaml'), 'triggers:\n  keywords: [release notes, changelog]\n');

// A skill made in code that is nothing but tool steps: it answers without a model call.
const word = defineTool({
  name: 'count_words',
  description: 'Counts the words of a text.',
  parameters: z.object({ text: z.string() }),
  execute: ({ text }) => Promise.resolve({ content: String(text.split(/\s+/).filter(Boolean).length) }),
});
const wordCount = defineSkill({
  name: 'word-count',
  description: 'Counts the words of a request. Use when asked to count words.',
  triggers: { patterns: ['^count the words\\b'] },
  tools: [word],
  steps: [{ name: 'count', tool: 'count_words', arguments: { text: '{{task}}' } }],
  result: 'That request has {{count}} words.',
});

// The offline model: the first request reads the skill's style file, then answers.
const model = new ScriptedModel([
  { toolCalls: [{ name: 'read_skill_file', arguments: { skill: 'release-notes', path: 'references/style.md' } }] },
  { text: 'Added: skills.' },
]);
const rt = await createRuntime({ model, skills: [skills, wordCount] });
rt.bus.on(SkillActions.activated).subscribe((task) => console.log('activated', task.parameters['skill'], 'by', task.parameters['by']));

const notes = await rt.waitForAnswer(await rt.submit('write the release notes for 1.2'), { timeoutMs: 10_000 });
console.log(notes.result); // { text: 'Added: skills.' }
const system = model.requests[0]?.messages[0]?.content ?? '';
console.log(system.includes('Active skill release-notes')); // true: the body entered once the keyword matched

const counted = await rt.waitForAnswer(await rt.submit('count the words of this sentence please'), { timeoutMs: 10_000 });
console.log(counted.result, model.requests.length); // { text: 'That request has 7 words.' } 2: no model call for it

await rt.shutdown();
await rm(skills, { recursive: true, force: true });
