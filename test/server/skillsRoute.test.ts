import { describe, expect, it } from 'vitest';
import { defineSkill } from '../../src/skills/index.js';
import { skillsRoot, writeSkill } from '../skills/skillFolders.js';
import { call, serverPerTest } from '../support/httpServerFixture.js';
import type { paths } from '../support/openapi.generated.js';

// GET /api/skills over real HTTP on loopback: the skills a running service has, and what a text would activate.

const served = serverPerTest();
const tempRoot = skillsRoot();

type SkillsBody = paths['/api/skills']['get']['responses']['200']['content']['application/json'];

async function service() {
  const root = await tempRoot();
  await writeSkill(root, 'release-notes', ['name: release-notes', 'description: Writes release notes. Use when asked for release notes.'], 'Secret body.');
  await writeSkill(root, 'Bad_Name', ['name: Bad_Name', 'description: Broken.']);
  const refund = defineSkill({
    name: 'refunds',
    description: 'Handles refunds. Use when a customer asks for money back.',
    body: 'Check the order first.',
    triggers: { keywords: ['refund'], patterns: ['order #\\d+'] },
  });
  return served({ runtime: { skills: [refund, root] } });
}

describe('GET /api/skills', () => {
  it('lists every skill with its triggers and not its body, and the skills refused with file, field and rule', async () => {
    const { url } = await service();
    const listed = await call<SkillsBody>(url, '/api/skills');
    expect(listed.status).toBe(200);
    expect(listed.body.skills.map((skill) => skill.name).sort()).toEqual(['refunds', 'release-notes']);
    expect(listed.body.skills.find((skill) => skill.name === 'refunds')).toEqual({
      name: 'refunds',
      description: 'Handles refunds. Use when a customer asks for money back.',
      triggers: { keywords: ['refund'], patterns: ['order #\\d+'] },
      steps: 0,
    });
    expect(JSON.stringify(listed.body)).not.toContain('Secret body');
    expect(listed.body.problems).toEqual([expect.objectContaining({ field: 'name', file: expect.stringContaining('Bad_Name') as unknown })]);
    expect(listed.body.matches).toBeUndefined();
  });

  it('with match, says which skills a Task of that text would activate and why', async () => {
    const { url } = await service();
    const matched = await call<SkillsBody>(url, `/api/skills?match=${encodeURIComponent('about order #42, not a refund')}`);
    expect(matched.status).toBe(200);
    expect(matched.body.matches).toEqual([{ skill: 'refunds', by: 'keyword', score: 1 }]);
    const none = await call<SkillsBody>(url, `/api/skills?match=${encodeURIComponent('a haiku please')}`);
    expect(none.body.matches).toEqual([]);
  });

  it('refuses an empty or oversized match and an unknown parameter, naming it', async () => {
    const { url } = await service();
    const empty = await call<{ error: { code: string; field: string } }>(url, '/api/skills?match=');
    expect(empty.status).toBe(400);
    expect(empty.body.error).toMatchObject({ code: 'invalid_input', field: 'match' });
    const huge = await call<{ error: { code: string; field: string } }>(url, `/api/skills?match=${'a'.repeat(8_001)}`);
    expect(huge.status).toBe(400);
    expect(huge.body.error.field).toBe('match');
    const unknown = await call<{ error: { code: string; message: string } }>(url, '/api/skills?agent=root');
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.message).toMatch(/agent/);
  });
});
