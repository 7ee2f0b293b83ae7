import type { EventBus } from '../bus/index.js';
import type { Clock } from '../clock.js';
import { sharedTokenCounter } from '../context/tokenCounter.js';
import type { IdGenerator } from '../ids.js';
import { type Task, type ToolPolicy, observationTask } from '../task/index.js';
import type { Skill } from './skill.js';
import type { SkillLimits } from './skillLimits.js';
import type { SkillMatch } from './skillMatcher.js';
import { type SkillPolicy, type SkillRegistry, skillAllowed } from './skillRegistry.js';

/** The actions of the Tasks that say a skill became active or stopped being active for an agent in a session. */
export const SkillActions = {
  activated: 'skill.activated',
  deactivated: 'skill.deactivated',
} as const;

/** How a skill became active: a trigger matched the Task, or the model called `use_skill`. */
export type ActivatedBy = SkillMatch['by'] | 'use_skill';

export interface SkillHubDeps {
  readonly registry: SkillRegistry;
  readonly bus: EventBus;
  readonly ids: IdGenerator;
  readonly clock: Clock;
  readonly limits: SkillLimits;
  /** Sessions per agent whose active skills are kept; past it the least recently used session's are let go. */
  readonly sessionsPerAgent: number;
  /** Told each time a session's active skills change (none: let go), so they can be kept (the org store, with a data dir). */
  readonly changed?: (agentId: string, sessionId: string, skills: readonly string[]) => void;
}

/** A session's active skills as kept, by name. */
export interface KeptSkills {
  readonly sessionId: string;
  readonly skills: readonly string[];
}

/** One agent's part: its role's policy and, per session (least recently used first), its active skills (least recently activated first). */
interface AgentSkills {
  readonly policy: ToolPolicy | undefined;
  readonly sessions: Map<string, Skill[]>;
}

/**
 * The skills side of a society: the shared registry, and which skills each agent has active in
 * each of its sessions. Activation and deactivation are published as Tasks on the bus
 * (`skill.activated`, `skill.deactivated`, observations about the Task at hand). What an agent's
 * context shows of skills comes from here: the list of those it may use, and the body of each active one.
 */
export class SkillHub {
  readonly registry: SkillRegistry;
  readonly limits: SkillLimits;
  readonly #deps: SkillHubDeps;
  readonly #agents = new Map<string, AgentSkills>();
  readonly #catalogues = new WeakMap<object, { version: number; tokens: number; text: string }>();
  readonly #everyone = {};
  /** Tools only skills brought, each with the skills that bring it: an agent sees one only in a session where one of those is active. */
  readonly #gated = new Map<string, Set<string>>();

  constructor(deps: SkillHubDeps) {
    this.#deps = deps;
    this.registry = deps.registry;
    this.limits = deps.limits;
  }

  /**
   * `tool`, which `skill` brought and nothing else gave the society, is shown to an agent (and
   * callable by its model) only in a session where a skill that brings it is active.
   */
  gateTool(tool: string, skill: string): void {
    const skills = this.#gated.get(tool) ?? new Set<string>();
    skills.add(skill);
    this.#gated.set(tool, skills);
  }

  /** The tools skills brought that are hidden from `agentId` in `sessionId`: none of the skills bringing them is active there. */
  hiddenTools(agentId: string, sessionId: string): string[] {
    if (this.#gated.size === 0) return [];
    const active = new Set(this.active(agentId, sessionId).map((skill) => skill.name));
    return [...this.#gated].filter(([, skills]) => ![...skills].some((skill) => active.has(skill))).map(([tool]) => tool);
  }

  /** An agent starts: its role's policy says which skills it may use. */
  enter(agentId: string, policy: ToolPolicy | undefined, kept: () => readonly KeptSkills[] = () => []): void {
    const agent: AgentSkills = { policy, sessions: new Map() };
    this.#agents.set(agentId, agent);
    // Read only when there are skills at all: an agent restarted has its sessions' skills again, those still loaded.
    if (this.registry.size === 0) return;
    for (const { sessionId, skills } of kept()) {
      const active = skills.map((name) => this.registry.get(name)).filter((skill) => skill !== undefined);
      if (active.length > 0) this.#session(agent, agentId, sessionId).push(...active.slice(-this.limits.maxActivePerSession));
    }
  }

  /** An agent is gone: its active skills go with it. */
  leave(agentId: string): void {
    this.#agents.delete(agentId);
  }

  policyOf(agentId: string): ToolPolicy | undefined {
    return this.#agents.get(agentId)?.policy;
  }

  /** Whether the agent may use the skill (it is loaded and the agent's role allows it). */
  mayUse(agentId: string, name: string): boolean {
    return this.registry.get(name) !== undefined && skillAllowed(this.#skillPolicy(agentId), name);
  }

  /** The skills active for `agentId` in `sessionId`, least recently activated first. */
  active(agentId: string, sessionId: string): readonly Skill[] {
    return this.#agents.get(agentId)?.sessions.get(sessionId) ?? [];
  }

  /**
   * Before a turn's first model call: activates the skills whose triggers match the Task (at most
   * `maxActivePerSession`, best first) and returns the matches.
   */
  async activateFor(agentId: string, task: Task, text: string): Promise<SkillMatch[]> {
    if (this.registry.size === 0 || !this.#agents.has(agentId)) return [];
    const matches = (await this.registry.matcher(this.#skillPolicy(agentId)).match(text)).slice(0, this.limits.maxActivePerSession);
    for (const match of matches) this.activate(agentId, task, match.skill, match.by);
    return matches;
  }

  /** Makes `skill` active for the agent in the Task's session; the least recently activated goes when over `maxActivePerSession`. Returns whether it was newly activated. */
  activate(agentId: string, task: Task, skill: Skill, by: ActivatedBy): boolean {
    const agent = this.#agents.get(agentId);
    if (agent === undefined) return false;
    const active = this.#session(agent, agentId, task.sessionId);
    const at = active.indexOf(skill);
    if (at !== -1) {
      active.splice(at, 1);
      active.push(skill);
      this.#changed(agentId, task.sessionId, active);
      return false;
    }
    active.push(skill);
    this.#publish(agentId, task, SkillActions.activated, { skill: skill.name, by });
    while (active.length > this.limits.maxActivePerSession) {
      const gone = active.shift();
      if (gone !== undefined) this.#publish(agentId, task, SkillActions.deactivated, { skill: gone.name, reason: 'maxActivePerSession' });
    }
    this.#changed(agentId, task.sessionId, active);
    return true;
  }

  /** Stops `name` being active for the agent in the Task's session; returns whether it was. */
  deactivate(agentId: string, task: Task, name: string): boolean {
    const active = this.#agents.get(agentId)?.sessions.get(task.sessionId);
    const at = active?.findIndex((skill) => skill.name === name) ?? -1;
    if (active === undefined || at === -1) return false;
    active.splice(at, 1);
    this.#publish(agentId, task, SkillActions.deactivated, { skill: name, reason: 'asked' });
    this.#changed(agentId, task.sessionId, active);
    return true;
  }

  /**
   * What an agent's context shows of skills in a session: the names and descriptions of those it
   * may use within `catalogueShare` of `budgetTokens` (those past it counted), then the body of
   * each skill active in the session. Empty when no skill is loaded.
   */
  prompt(agentId: string, sessionId: string, budgetTokens: number): string {
    if (this.registry.size === 0) return '';
    const policy = this.#skillPolicy(agentId);
    const catalogue = this.#catalogue(policy, Math.floor(budgetTokens * this.limits.catalogueShare));
    const active = this.active(agentId, sessionId);
    if (active.length === 0) return catalogue;
    const bodies = active.map((skill) => activeSection(skill));
    return [catalogue, ...bodies].filter((part) => part !== '').join('\n\n');
  }

  #skillPolicy(agentId: string): SkillPolicy | undefined {
    return this.#agents.get(agentId)?.policy?.skills;
  }

  #session(agent: AgentSkills, agentId: string, sessionId: string): Skill[] {
    const { sessions } = agent;
    let active = sessions.get(sessionId);
    if (active !== undefined) sessions.delete(sessionId);
    active ??= [];
    sessions.set(sessionId, active);
    for (const oldest of sessions.keys()) {
      if (sessions.size <= this.#deps.sessionsPerAgent) break;
      sessions.delete(oldest);
      // Kept for no more sessions than memory holds.
      this.#changed(agentId, oldest, []);
    }
    return active;
  }

  #changed(agentId: string, sessionId: string, active: readonly Skill[]): void {
    this.#deps.changed?.(
      agentId,
      sessionId,
      active.map((skill) => skill.name),
    );
  }

  /** The list of skills a policy allows, fitted to `tokens`; kept per policy until the registry or the budget changes. */
  #catalogue(policy: SkillPolicy | undefined, tokens: number): string {
    const key = policy ?? this.#everyone;
    const kept = this.#catalogues.get(key);
    if (kept !== undefined && kept.version === this.registry.version && kept.tokens === tokens) return kept.text;
    const skills = this.registry.list(policy);
    const head = 'Skills you can use (call use_skill with a name to get its instructions; some activate by themselves):';
    let used = sharedTokenCounter.text(head);
    const lines: string[] = [];
    for (const skill of skills) {
      const line = `- ${skill.name}: ${skill.description.replace(/\s+/g, ' ')}`;
      const cost = sharedTokenCounter.text(line) + 1;
      if (used + cost > tokens) break;
      used += cost;
      lines.push(line);
    }
    const left = skills.length - lines.length;
    const text =
      skills.length === 0 ? '' : [head, ...lines, ...(left > 0 ? [`- … and ${left} more skills not listed here (ask use_skill by name)`] : [])].join('\n');
    this.#catalogues.set(key, { version: this.registry.version, tokens, text });
    return text;
  }

  #publish(agentId: string, task: Task, action: string, parameters: Record<string, string>): void {
    if (!this.#deps.bus.wants('observer', action)) return;
    this.#deps.bus.publish(
      observationTask({ from: agentId, about: task, action, parameters: { ...parameters, agentId, sessionId: task.sessionId } }, this.#deps),
    );
  }
}

/** An active skill as the context shows it: its instructions, and how to read its files. */
function activeSection(skill: Skill): string {
  const files =
    skill.dir === null
      ? ''
      : `\n(Files of this skill, e.g. references/ or scripts/, can be read with read_skill_file {"skill": "${skill.name}", "path": "..."}.)`;
  return `Active skill ${skill.name}:\n${skill.body}${files}`;
}
