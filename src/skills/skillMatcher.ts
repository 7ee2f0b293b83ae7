import type { Embedder } from '../memory/embedding/embedder.js';
import { dot } from '../memory/embedding/vectors.js';
import { requiredLiteral } from './requiredLiteral.js';
import type { Skill } from './skill.js';

/** Why a skill matched a text: one of its keywords, one of its patterns, or its semantic description. */
export interface SkillMatch {
  readonly skill: Skill;
  readonly by: 'keyword' | 'pattern' | 'semantic';
  /** 1 for a keyword or pattern; the cosine similarity for a semantic match. */
  readonly score: number;
}

/** The similarity a Task needs to a skill's semantic description when the skill does not say. */
const defaultMinSimilarity = 0.35;

/** A keyword of some skill, indexed under its first word. */
interface Phrase {
  readonly skill: number;
  /** Its words after the first. */
  readonly rest: readonly string[];
}

/** A text's words, lowercased: what keywords are matched against (whole words, so `art` never matches `start`). */
function wordsOf(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];
}

/**
 * The triggers of a set of skills, compiled once so matching a Task costs little however many
 * skills there are: keywords in an index by their first word (a Task's text costs one lookup per
 * word, not one test per keyword), patterns compiled, semantic descriptions embedded into one
 * matrix scanned with the Task's vector.
 */
export class SkillMatcher {
  readonly #skills: readonly Skill[];
  readonly #phrases = new Map<string, Phrase[]>();
  /** Each pattern with the text any match of it must contain, when it has one (a text without it is passed over unrun). */
  readonly #patterns: { readonly skill: number; readonly regex: RegExp; readonly literal: string | undefined }[] = [];
  readonly #semantic: { readonly skill: number; readonly min: number }[] = [];
  readonly #embedder: Embedder | null;
  /** Each semantic trigger's vector, in the order of `#semantic`. */
  #vectors: Float32Array[] | undefined;

  constructor(skills: readonly Skill[], embedder: Embedder | null) {
    this.#skills = skills;
    this.#embedder = embedder;
    for (const [index, skill] of skills.entries()) {
      const { keywords = [], patterns = [], semantic, minSimilarity } = skill.triggers;
      for (const keyword of keywords) {
        const [first, ...rest] = wordsOf(keyword);
        if (first === undefined) continue;
        const list = this.#phrases.get(first) ?? [];
        list.push({ skill: index, rest });
        this.#phrases.set(first, list);
      }
      for (const source of patterns) {
        const regex = compilePattern(source);
        this.#patterns.push({ skill: index, regex, literal: regex.flags === 'i' ? requiredLiteral(source) : undefined });
      }
      if (semantic !== undefined && embedder !== null) this.#semantic.push({ skill: index, min: minSimilarity ?? defaultMinSimilarity });
    }
  }

  /** Whether matching needs the text's vector (some skill has a semantic trigger and there is an embedder). */
  get semantic(): boolean {
    return this.#semantic.length > 0;
  }

  /** Embeds every semantic description once; `match` waits for it. */
  async prepare(): Promise<void> {
    if (this.#vectors !== undefined || this.#embedder === null || this.#semantic.length === 0) return;
    const texts = this.#semantic.map(({ skill }) => this.#skills[skill]?.triggers.semantic ?? '');
    this.#vectors = await this.#embedder.embed(texts);
  }

  /** The skills whose triggers match `text`: keyword and pattern matches first (in skill order), then semantic ones by similarity. */
  async match(text: string): Promise<SkillMatch[]> {
    const matches = this.matchWords(text);
    if (this.#semantic.length === 0 || this.#embedder === null) return matches;
    await this.prepare();
    const [vector] = await this.#embedder.embed([text]);
    if (vector === undefined) return matches;
    const found = new Set(matches.map((match) => match.skill));
    const semantic: SkillMatch[] = [];
    const vectors = this.#vectors ?? [];
    for (const [row, { skill, min }] of this.#semantic.entries()) {
      const candidate = this.#skills[skill];
      const against = vectors[row];
      if (candidate === undefined || against === undefined || found.has(candidate) || against.length !== vector.length) continue;
      const similarity = dot(vector, against);
      if (similarity >= min) semantic.push({ skill: candidate, by: 'semantic', score: similarity });
    }
    semantic.sort((a, b) => b.score - a.score);
    return [...matches, ...semantic];
  }

  /** Keyword and pattern matches only: what needs no embedding. */
  matchWords(text: string): SkillMatch[] {
    const hit = new Map<number, SkillMatch['by']>();
    const words = wordsOf(text);
    for (let i = 0; i < words.length; i++) {
      const phrases = this.#phrases.get(words[i] ?? '');
      if (phrases === undefined) continue;
      for (const { skill, rest } of phrases) {
        if (!hit.has(skill) && rest.every((word, j) => words[i + 1 + j] === word)) hit.set(skill, 'keyword');
      }
    }
    const lower = this.#patterns.length === 0 ? '' : text.toLowerCase();
    for (const { skill, regex, literal } of this.#patterns) {
      if (hit.has(skill) || (literal !== undefined && !lower.includes(literal))) continue;
      if (regex.test(text)) hit.set(skill, 'pattern');
    }
    return [...hit.entries()]
      .sort(([a], [b]) => a - b)
      .flatMap(([index, by]) => {
        const skill = this.#skills[index];
        return skill === undefined ? [] : [{ skill, by, score: 1 }];
      });
  }
}

/**
 * A trigger pattern, matched case-insensitively. V8 runs a regex with both `i` and `u` about ten
 * times slower than with either alone, and 1,000 skills' patterns are tested on every Task: a
 * pattern of ASCII only, with no Unicode escape (`\p{…}`, `\u{…}`), means the same without `u`
 * (but for the two non-ASCII letters `u` case-folds to k and s), so it is compiled with `i` alone.
 */
export function compilePattern(source: string): RegExp {
  const needsUnicode = /[^\p{ASCII}]|\\[pP]\{|\\u\{/u.test(source);
  try {
    return new RegExp(source, needsUnicode ? 'iu' : 'i');
  } catch {
    // Valid with `u` (it was checked so) but not without: keep its meaning.
    return new RegExp(source, 'iu');
  }
}
