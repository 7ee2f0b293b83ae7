import { describe, expect, it } from 'vitest';
import { HashedNgramEmbedder } from '../../src/memory/embedding/hashedNgramEmbedder.js';
import { SkillMatcher, defineSkill } from '../../src/skills/index.js';
import { compilePattern } from '../../src/skills/skillMatcher.js';

const pdf = defineSkill({ name: 'pdf', description: 'PDF work.', triggers: { keywords: ['pdf', 'fill a form'] } });
const invoice = defineSkill({ name: 'invoice', description: 'Invoices.', triggers: { patterns: ['\\binv-\\d{4}\\b'] } });
const weather = defineSkill({
  name: 'weather',
  description: 'Weather.',
  triggers: { semantic: 'questions about the weather forecast, rain, temperature and wind', minSimilarity: 0.3 },
});
const skills = [pdf, invoice, weather];

describe('matching a Task against skill triggers', () => {
  it('matches a keyword as a whole word, case-insensitively, and a phrase word by word', async () => {
    const matcher = new SkillMatcher(skills, null);
    expect(await matcher.match('Please merge these PDF files')).toEqual([{ skill: pdf, by: 'keyword', score: 1 }]);
    expect(await matcher.match('could you Fill a   Form for me')).toEqual([{ skill: pdf, by: 'keyword', score: 1 }]);
    expect(await matcher.match('pdfs are not the word pdf-less? they are: pdfs')).toEqual([{ skill: pdf, by: 'keyword', score: 1 }]);
    expect(await matcher.match('fill the form')).toEqual([]);
    expect(await matcher.match('a spdf file')).toEqual([]);
  });

  it('matches a regular expression', async () => {
    const matcher = new SkillMatcher(skills, null);
    expect(await matcher.match('where is INV-2024?')).toEqual([{ skill: invoice, by: 'pattern', score: 1 }]);
    expect(await matcher.match('inv-20245')).toEqual([]);
  });

  it("matches a semantic description with the memory's offline embedder, above the skill's threshold", async () => {
    const matcher = new SkillMatcher(skills, new HashedNgramEmbedder());
    const [match, ...rest] = await matcher.match('what is the weather forecast for tomorrow, will there be rain?');
    expect(rest).toEqual([]);
    expect(match).toMatchObject({ skill: weather, by: 'semantic' });
    expect(match?.score).toBeGreaterThanOrEqual(0.3);
    expect(await matcher.match('merge the quarterly spreadsheets')).toEqual([]);
  });

  it('puts keyword and pattern matches before semantic ones, and needs an embedder for the semantic', async () => {
    const matcher = new SkillMatcher(skills, new HashedNgramEmbedder());
    const matches = await matcher.match('the weather forecast, rain and wind, as a PDF for INV-2024');
    expect(matches.map((match) => [match.skill.name, match.by])).toEqual([
      ['pdf', 'keyword'],
      ['invoice', 'pattern'],
      ['weather', 'semantic'],
    ]);
    expect(new SkillMatcher(skills, null).semantic).toBe(false);
  });

  it('matches patterns case-insensitively whether they need Unicode or not', () => {
    expect(compilePattern('\\binv-\\d+').test('see INV-12')).toBe(true);
    expect(compilePattern('\\binv-\\d+').flags).toBe('i');
    expect(compilePattern('ÉTÉ').test('un été chaud')).toBe(true);
    expect(compilePattern('\\p{Lu}{3}').flags).toBe('iu');
    expect(compilePattern('\\p{Lu}{3}').test('abc')).toBe(true);
  });
});
