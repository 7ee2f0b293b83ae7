/**
 * The skills an agent has active, per session: its own, never its parent's or a child's (seed
 * 003: the registry is shared, active skills are not). The seam the skills layer fills; which
 * skills it may activate at all is `ResolvedSettings.skills`, inherited from its parent.
 */
export class ActiveSkills {
  readonly #bySession = new Map<string, Set<string>>();

  activate(sessionId: string, skill: string): void {
    const active = this.#bySession.get(sessionId) ?? new Set<string>();
    active.add(skill);
    this.#bySession.set(sessionId, active);
  }

  deactivate(sessionId: string, skill: string): void {
    const active = this.#bySession.get(sessionId);
    active?.delete(skill);
    if (active?.size === 0) this.#bySession.delete(sessionId);
  }

  /** The skills active in `sessionId`. */
  of(sessionId: string): ReadonlySet<string> {
    return this.#bySession.get(sessionId) ?? new Set();
  }
}
