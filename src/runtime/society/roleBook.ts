import { TroupeError } from '../../errors.js';
import type { Clock } from '../../clock.js';
import type { IdGenerator } from '../../ids.js';
import type { Role } from '../../org/index.js';
import type { ToolPolicy } from '../../task/index.js';

/** The roles of a society, by id and by name (names are unique). */
export class RoleBook {
  readonly #byId = new Map<string, Role>();
  readonly #byName = new Map<string, Role>();

  constructor(private readonly deps: { ids: IdGenerator; clock: Clock }) {}

  create(input: { name: string; prompt: string; description?: string; createdBy: string; tools?: ToolPolicy; handoffs?: string[] }): Role {
    const name = input.name.trim();
    if (name === '') throw new TroupeError('invalid_input', 'a role needs a name');
    if (this.#byName.has(name)) throw new TroupeError('invalid_input', `a role named "${name}" already exists`);
    if (input.description !== undefined && input.description.length > 1024) {
      throw new TroupeError('invalid_input', `the description of role "${name}" has ${input.description.length} characters, more than 1,024`);
    }
    const role: Role = Object.freeze({ ...input, name, id: `role-${this.deps.ids.task()}`, createdAt: this.deps.clock.now() });
    this.#byId.set(role.id, role);
    this.#byName.set(role.name, role);
    return role;
  }

  /** Puts back a role read from the organisation store. */
  restore(role: Role): void {
    this.#byId.set(role.id, role);
    this.#byName.set(role.name, role);
  }

  /** Takes back a role whose creation could not be recorded. */
  forget(roleId: string): void {
    const role = this.#byId.get(roleId);
    if (role === undefined) return;
    this.#byId.delete(roleId);
    this.#byName.delete(role.name);
  }

  /** A role by id or by name. */
  find(idOrName: string): Role | undefined {
    return this.#byId.get(idOrName) ?? this.#byName.get(idOrName.trim());
  }

  list(): Role[] {
    return [...this.#byId.values()];
  }

  /** How many roles there are: a role once made stays (but for one whose creation failed), so a change of count is a change of roles. */
  get size(): number {
    return this.#byId.size;
  }
}
