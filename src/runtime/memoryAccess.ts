import { TroupeError } from '../errors.js';
import type { GraphMemory } from '../graph/index.js';
import { AgentIdSchema, type Redactor, parseOrThrow } from '../task/index.js';
import { societyGraphOwner } from './memory/graphHub.js';
import {
  type ImportItem,
  type ImportReport,
  type ProgramMemoryDeps,
  type RememberInput,
  type RememberedFactView,
  forgetForProgram,
  importForProgram,
  rememberForProgram,
} from './memory/programMemory.js';
import type { GraphQueryInput, GraphView } from './views/graphView.js';
import type { MemoryQueryInput, MemoryView } from './views/memoryQuery.js';
import { readGraph } from './views/readGraph.js';
import { readMemory } from './views/readMemory.js';

export interface MemoryAccessDeps extends ProgramMemoryDeps {
  /** What views redact with unless given another: the runtime's. */
  readonly redactor: Redactor;
}

/**
 * What a program reads of agents' memories and graphs and writes into them, with no model turn:
 * the runtime's `memory`, `remember`, `forget`, `importMemory`, `graph` and `graphMemory`, which
 * delegate here (see their docs on `Runtime`).
 */
export class MemoryAccess {
  readonly #deps: MemoryAccessDeps;

  constructor(deps: MemoryAccessDeps) {
    this.#deps = deps;
  }

  /**
   * What an agent remembers (see `MemoryQuerySchema`): counts of every tier, and a page of one
   * tier or the L4 facts closest to `search`, its text redacted (with `redactor`, the runtime's by
   * default). A terminated agent's memory is read from the data dir; memory only, it is gone
   * (`agent_terminated`). Looking counts no retrieval.
   */
  memory(agentId: string, query: MemoryQueryInput, redactor: Redactor = this.#deps.redactor): Promise<MemoryView> {
    return readMemory(this.#deps, agentId, query, redactor);
  }

  /**
   * Puts a fact into a live agent's long-term memory (L4) without a model turn: in `sessionId`'s
   * session when given (scope `session`), else the agent's for every session. A near-duplicate
   * of a fact it holds is merged into that one (`merged: true`, with its id and text). Resolves
   * once it is on disk; refused naming the field (`text: … more than maxFactChars (500)`).
   */
  remember(agentId: string, input: RememberInput): Promise<RememberedFactView> {
    return rememberForProgram(this.#deps, agentId, input);
  }

  /** Removes a fact from a live agent's long-term memory; `unknown_fact` when it holds none of that id (saying which fact holds one merged away). */
  forget(agentId: string, factId: string): Promise<void> {
    return forgetForProgram(this.#deps, agentId, factId);
  }

  /**
   * Puts many facts and conversation turns into a live agent's long-term memory at once (see
   * `ImportItem`), in order. Every item is checked first: one bad item refuses them all, naming
   * each (`items[4].speaker: …`), and nothing is stored. Turns are stored as said (never merged);
   * a turn longer than `maxFactChars` becomes one fact per part. At most `maxImportItems` items.
   */
  importMemory(agentId: string, items: readonly ImportItem[]): Promise<ImportReport> {
    return importForProgram(this.#deps, agentId, items);
  }

  /**
   * An agent's graph of events and notes, or the society's (`society`), as `GraphQuerySchema`
   * asks: its newest nodes, or node `nodeId` with its neighbourhood to `depth` links and the edges
   * among them (with their types), redacted. A terminated agent's graph is read from the data dir;
   * memory only, it is gone (`agent_terminated`). An unknown node is `unknown_node`.
   */
  graph(ownerId: string, query: GraphQueryInput, redactor: Redactor = this.#deps.redactor): Promise<GraphView> {
    return readGraph(this.#deps, ownerId, query, redactor);
  }

  /**
   * The graph memory of a live agent, or the society's (`society`), to read and change as its
   * graph tools do, within the same rules and limits (`memory.graph`); `unknown_agent`, or
   * `agent_terminated` once its agent's memory is closed.
   */
  async graphMemory(ownerId: string): Promise<GraphMemory> {
    const { hub, known } = this.#deps;
    const id = parseOrThrow(AgentIdSchema, ownerId, 'ownerId');
    if (id !== societyGraphOwner && hub.opened(id) === undefined) {
      if (!known(id)) throw new TroupeError('unknown_agent', `no agent "${id}"`, { context: { agentId: id } });
      throw new TroupeError('agent_terminated', `agent "${id}" is terminated: its graph is closed (\`rt.graph\` reads what the data dir keeps)`, {
        context: { agentId: id },
      });
    }
    return hub.graphs.of(id);
  }
}
