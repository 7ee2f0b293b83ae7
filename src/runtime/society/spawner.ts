import { TroupeError, describeError } from '../../errors.js';
import { agentIdFor } from '../../ids.js';
import type { AgentRecord } from '../../org/index.js';
// From the schemas alone: the org store's module would load lmdb.
import { SpawnCallSchema } from '../../org/schemas.js';
import { Actions, type AgentSettings, type TaskRef } from '../../task/index.js';
import type { SpawnCallRef } from '../../tools/index.js';
import type { AgentEnvironment } from '../agent/index.js';
import type { LiveAgents } from './liveAgents.js';
import type { OrgTree } from './orgTree.js';
import type { RemoteAgent } from './remote/remoteAgent.js';
import { reservedIds } from './reservedIds.js';
import type { RoleBook } from './roleBook.js';
import type { SpawnLimits } from './spawnLimits.js';
import { type ParentLookup, spawnSettings } from './spawnSettings.js';
import type { SubtreeStops } from './subtreeStops.js';

/** What a spawn is asked for. */
export interface SpawnInput {
  role: string;
  parent: string | null;
  id?: string;
  parentTask?: TaskRef;
  call?: SpawnCallRef;
  /** What it is given instead of what it would inherit from its parent (see `spawnSettings`). */
  settings?: AgentSettings;
}

/** What the spawner asks of the society it spawns into. */
interface SpawnSociety extends ParentLookup {
  requireLive(agentId: string): AgentRecord;
  isActive(agentId: string): boolean;
}

/**
 * Spawns agents into a society: checks the rules (the role, the parent, the id, the limits),
 * records the agent, then starts it here or places it on a node that announced its role. A spawn
 * run again for the same tool call returns the agent it made the first time.
 */
export class Spawner {
  constructor(
    private readonly deps: {
      readonly env: AgentEnvironment;
      readonly roles: RoleBook;
      readonly org: OrgTree;
      readonly live: LiveAgents;
      readonly limits: SpawnLimits;
      readonly stops: SubtreeStops;
      readonly society: SpawnSociety;
    },
  ) {}

  /** See `Society.spawn`. */
  async spawn(input: SpawnInput): Promise<{ agentId: string; roleId: string }> {
    // A call id too long to keep is not kept: that spawn is then not recognised if run again.
    const call = input.parent !== null && SpawnCallSchema.safeParse(input.call).success ? input.call : undefined;
    const earlier = call === undefined || input.parent === null ? undefined : this.deps.org.spawnedBy(input.parent, call);
    if (earlier !== undefined) return { agentId: earlier.id, roleId: earlier.roleId };
    const role = this.deps.roles.find(input.role);
    if (role === undefined) throw new TroupeError('invalid_input', `no role "${input.role}"; create it first`);
    if (input.parent !== null) this.deps.society.requireLive(input.parent);
    const id = input.id ?? agentIdFor(this.deps.env.ids, role.name, (named) => this.deps.env.redactor.reveals(named));
    if (reservedIds.has(id) || this.deps.society.record(id) !== undefined) throw new TroupeError('invalid_input', `agent id "${id}" is taken`);
    const settings = spawnSettings(this.deps.society, input.parent, input.settings, this.deps.env.models);

    // Refused past a limit; held until the agent is live (or the spawn failed).
    const release = this.deps.limits.reserve(input.parent);
    const record: AgentRecord = {
      id,
      roleId: role.id,
      parentAgentId: input.parent,
      createdAt: this.deps.env.clock.now(),
      terminatedAt: null,
      status: 'active',
      ...(call === undefined ? {} : { spawnCall: call }),
      ...(settings === undefined ? {} : { settings }),
    };
    this.deps.org.add(record);
    // Set once the record is durable: a failure after that leaves the record (it is on disk).
    const progress = { recorded: false };
    // A node that announced the role hosts the agent; else this process does.
    const node = this.deps.live.remote.hostFor(role);
    let placed: RemoteAgent | undefined;
    let started: boolean;
    try {
      started = await this.deps.env.journal.agent(record, () => {
        progress.recorded = true;
        release();
        // The parent may have been terminated while the record was being written.
        if (input.parent !== null && !this.deps.society.isActive(input.parent)) return false;
        if (node !== undefined) placed = this.deps.live.place(record, role, node);
        else this.deps.live.start(record, role, 'new').notify(Actions.spawned, { agentId: id, roleId: role.id, role: role.name }, input.parentTask ?? null);
        return true;
      });
    } catch (error) {
      if (!progress.recorded) this.deps.org.remove(id);
      throw error;
    } finally {
      release();
    }
    if (!started) {
      await this.deps.env.journal.terminated({
        agentId: id,
        terminatedBy: input.parent ?? 'user',
        at: this.deps.env.clock.now(),
        reason: 'parent terminated while spawning',
        mode: 'abort',
      });
      this.deps.live.retire(this.deps.org.markTerminated(id, this.deps.env.clock.now()));
      throw new TroupeError('agent_terminated', `agent "${input.parent ?? ''}" is terminated`, { context: { agentId: input.parent ?? undefined } });
    }
    if (placed !== undefined) await this.#place(placed, input.parentTask ?? null);
    return { agentId: id, roleId: role.id };
  }

  /** Starts an agent already recorded on its node; one its node refuses or never confirms is recorded terminated, and the spawn fails. */
  async #place(agent: RemoteAgent, about: TaskRef | null): Promise<void> {
    try {
      await agent.place(about);
      this.deps.env.logger.info({ agentId: agent.id, node: agent.node, role: agent.role.name }, 'agent placed on a node');
    } catch (error) {
      const why = `could not be placed on node ${agent.node}: ${describeError(error)}`;
      agent.lost(why);
      await this.deps.stops.lose(agent, why);
      throw error;
    }
  }
}
