import { TroupeError } from '../errors.js';
import type { Embedder } from '../memory/embedding/embedder.js';
import type { ToolPolicy } from '../task/index.js';
import type { Skill } from './skill.js';
import { SkillMatcher } from './skillMatcher.js';

/** Which skills a role may use: its tool policy's `skills` part. */
export type SkillPolicy = NonNullable<ToolPolicy['skills']>;

/** Whether `policy` lets a role use the skill `name`: in `allow` when there is one, and not in `deny`. */
export function skillAllowed(policy: SkillPolicy | undefined, name: string): boolean {
  if (policy?.allow !== undefined && !policy.allow.includes(name)) return false;
  return !(policy?.deny?.includes(name) ?? false);
}

/**
 * The skills of a whole society (children share their parent's), with the matchers of their
 * triggers: one per policy, made when first asked for and kept until a skill is added.
 */
export class SkillRegistry {
  readonly #skills = new Map<string, Skill>();
  readonly #maxSkills: number;
  readonly #embedder: Embedder | null;
  #matchers = new WeakMap<SkillPolicy, SkillMatcher>();
  #unrestricted: SkillMatcher | undefined;
  #version = 0;

  constructor(options: { maxSkills: number; embedder: Embedder | null }) {
    this.#maxSkills = options.maxSkills;
    this.#embedder = options.embedder;
  }

  /** Adds skills; a name already taken, or one past `maxSkills`, is refused (`invalid_input`) naming it. */
  add(...skills: Skill[]): this {
    for (const skill of skills) {
      if (this.#skills.has(skill.name)) throw new TroupeError('invalid_input', `a skill named ${skill.name} is already loaded`);
      if (this.#skills.size >= this.#maxSkills)
        throw new TroupeError('invalid_input', `skill ${skill.name} not loaded: maxSkills (${this.#maxSkills}) skills are loaded already`);
      this.#skills.set(skill.name, skill);
    }
    this.#matchers = new WeakMap();
    this.#unrestricted = undefined;
    this.#version += 1;
    return this;
  }

  get(name: string): Skill | undefined {
    return this.#skills.get(name);
  }

  get size(): number {
    return this.#skills.size;
  }

  /** Grows by one each time skills are added: what caches made from the registry compare. */
  get version(): number {
    return this.#version;
  }

  names(): Set<string> {
    return new Set(this.#skills.keys());
  }

  /** The skills `policy` lets a role use, in the order they were added. */
  list(policy?: SkillPolicy): Skill[] {
    const all = [...this.#skills.values()];
    return policy === undefined ? all : all.filter((skill) => skillAllowed(policy, skill.name));
  }

  /** The matcher of the triggers of the skills `policy` allows. */
  matcher(policy?: SkillPolicy): SkillMatcher {
    if (policy === undefined) return (this.#unrestricted ??= new SkillMatcher(this.list(), this.#embedder));
    let matcher = this.#matchers.get(policy);
    if (matcher === undefined) {
      matcher = new SkillMatcher(this.list(policy), this.#embedder);
      this.#matchers.set(policy, matcher);
    }
    return matcher;
  }
}
