import { HashedNgramEmbedder } from '../../src/memory/embedding/hashedNgramEmbedder.js';
import { seededRandom } from '../../src/random.js';
import { type Skill, SkillMatcher, defineSkill } from '../../src/skills/index.js';
import { sized } from './benchSize.js';
import { type Round, compare } from './measure.js';
import { type Row, p50Row } from './report.js';

// Issue 32: a Task matched against the triggers of 1,000 skills before an agent's first model
// call (goal: p50 ≤ 1 ms per Task), against the simplest matcher: a loop over every skill's
// keywords testing whether the lower-cased text includes each.

const SKILLS = 1_000;
const TASKS = 500;
const topics = ['invoice', 'weather', 'poem', 'report', 'email', 'calendar', 'pdf', 'spreadsheet', 'translate', 'refund', 'deploy', 'review'];
const words = ['please', 'the', 'a', 'quarterly', 'customer', 'draft', 'check', 'for', 'tomorrow', 'team', 'summary', 'of', 'our', 'new', 'urgent'];

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)] as T;
}

/** 1,000 skills: three keywords each (one a two-word phrase), one in four with a pattern, one in four with a semantic description. */
function skills(random: () => number): Skill[] {
  return Array.from({ length: SKILLS }, (_, i) => {
    const topic = pick(random, topics);
    const keywords = [`${topic}${i}`, `kw${i}`, `${pick(random, words)} ${topic}${i % 50}`];
    return defineSkill({
      name: `skill-${i}`,
      description: `Handles ${topic} work number ${i}.`,
      triggers: {
        keywords,
        ...(i % 4 === 0 ? { patterns: [`\\b${topic}-${i}\\b`] } : {}),
        ...(i % 4 === 1 ? { semantic: `requests about ${topic} ${pick(random, words)} ${pick(random, words)} ${i}`, minSimilarity: 0.6 } : {}),
      },
    });
  });
}

/** Tasks the way users write them: a dozen to forty words, some naming a skill's keyword. */
function tasks(random: () => number): string[] {
  return Array.from({ length: TASKS }, (_, i) => {
    const length = 12 + Math.floor(random() * 28);
    const text = Array.from({ length }, () => pick(random, words));
    if (i % 3 === 0) text.splice(Math.floor(random() * text.length), 0, `kw${Math.floor(random() * SKILLS)}`);
    if (i % 5 === 0) text.push(`${pick(random, topics)}-${Math.floor(random() * SKILLS)}`);
    return text.join(' ');
  });
}

/** Rounds that each match the next Task of the list. */
function cycling(texts: readonly string[], match: (text: string) => unknown): Round<string> {
  let next = 0;
  return {
    setup: () => texts[next++ % texts.length] ?? '',
    run: async (text) => {
      await match(text);
    },
  };
}

/** The simplest matcher: every keyword of every skill, `includes` on the lower-cased text. */
function includesLoop(all: readonly Skill[]): (text: string) => Skill[] {
  return (text) => {
    const lower = text.toLowerCase();
    const found: Skill[] = [];
    for (const skill of all) if ((skill.triggers.keywords ?? []).some((keyword) => lower.includes(keyword))) found.push(skill);
    return found;
  };
}

/** Matching one Task against 1,000 skills' triggers, with and without the semantic ones, against a loop of `includes`. */
export async function skillMatch(): Promise<Row[]> {
  const random = seededRandom(32);
  const all = skills(random);
  const texts = tasks(random);
  const baseline = includesLoop(all);
  const offline = new SkillMatcher(all, null);
  const semantic = new SkillMatcher(all, new HashedNgramEmbedder());
  await semantic.prepare();
  const options = sized({ warmup: 200, rounds: 2_000 }, { warmup: 0, rounds: 5 });
  const [words, wordsBase] = await compare(
    cycling(texts, (text) => offline.matchWords(text)),
    cycling(texts, baseline),
    options,
  );
  const [full, fullBase] = await compare(
    cycling(texts, (text) => semantic.match(text)),
    cycling(texts, baseline),
    options,
  );
  const workload = `${SKILLS.toLocaleString('en')} skills of 3 keywords (one a phrase), a pattern on 1 in 4; ${TASKS} Tasks of 12–40 words`;
  return [
    p50Row(
      `skills: match a Task against ${SKILLS.toLocaleString('en')} skills (keywords, patterns)`,
      words,
      wordsBase,
      `${workload}; whole-word keyword index + compiled patterns; raw = a loop of lower-cased includes over every keyword (substring, no patterns); goal p50 ≤ 1 ms; ratio of p50s`,
    ),
    p50Row(
      `skills: the same with semantic triggers (offline embedder)`,
      full,
      fullBase,
      `as above, and 1 in 4 skills with a semantic description: the Task embedded (hashed n-grams, 384 dims) and compared with 250 vectors; raw as above`,
    ),
  ];
}
