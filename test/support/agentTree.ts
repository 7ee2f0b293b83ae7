import fc from 'fast-check';
import type { Runtime } from '../../src/runtime/index.js';

// A random organisation for property tests: agents of role `worker` under root, the user and each other.

export interface Node {
  readonly id: string;
  readonly parent: string | null;
  readonly depth: number;
}

/** Each number picks a parent for the next agent among: none (top level), root, or an earlier agent of depth < 3. */
export const treeArb = fc.array(fc.nat(), { minLength: 1, maxLength: 10 });

/** Spawns the tree `choices` describes; returns the test's own model of it (root included). */
export async function spawnTree(rt: Runtime, choices: readonly number[]): Promise<Map<string, Node>> {
  await rt.createRole({ name: 'worker', prompt: 'You do work.' });
  const nodes = new Map<string, Node>([['root', { id: 'root', parent: null, depth: 0 }]]);
  for (const choice of choices) {
    const candidates: (Node | null)[] = [null, ...[...nodes.values()].filter((node) => node.depth < 3)];
    const parent = candidates[choice % candidates.length] ?? null;
    const id = await rt.spawn(parent === null ? { role: 'worker' } : { role: 'worker', parent: parent.id });
    nodes.set(id, { id, parent: parent?.id ?? null, depth: (parent?.depth ?? 0) + 1 });
  }
  return nodes;
}

/** `rootId` and its descendants in the test's model, parents first. */
export function subtree(nodes: ReadonlyMap<string, Node>, rootId: string): string[] {
  const out = [rootId];
  for (let i = 0; i < out.length; i++) {
    for (const node of nodes.values()) if (node.parent === out[i]) out.push(node.id);
  }
  return out;
}

/** Gives `agentId` a Task the way the user would: `submit` for root, `send` for the others; in `sessionId`, or a session of its own. */
function give(rt: Runtime, agentId: string, text: string, sessionId?: string): Promise<string> {
  const options = sessionId === undefined ? {} : { sessionId };
  return agentId === 'root' ? rt.submit(text, options) : rt.send(agentId, text, options);
}

/**
 * Gives each Task in order, each acknowledged before the next is given. `oneSessionPerAgent`: an
 * agent's Tasks share one session (named by its first), so they run one after another; else each
 * Task is a session of its own and they run in lanes side by side.
 */
export async function giveAll(rt: Runtime, work: readonly { agentId: string; text: string }[], { oneSessionPerAgent = false } = {}): Promise<string[]> {
  const sent: string[] = [];
  const sessions = new Map<string, string>();
  for (const { agentId, text } of work) {
    const taskId = await give(rt, agentId, text, oneSessionPerAgent ? sessions.get(agentId) : undefined);
    if (!sessions.has(agentId)) sessions.set(agentId, taskId);
    sent.push(taskId);
  }
  return sent;
}
