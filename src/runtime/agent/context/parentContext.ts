import { type ContextBudget, assembleContext, contextBudget } from '../../../context/index.js';
import type { AgentMemory } from '../../../memory/index.js';
import type { ChatMessage } from '../../../task/index.js';

/**
 * What a sub-agent inherits of its parent in one session: the parent's own context of that
 * session built from its memory (its summaries, important and recent Tasks, as the parent sees
 * them), within the share of the budget the sub-agent gives its parent. Null when the parent's
 * memory is not open (it is not live) or holds nothing of the session.
 */
export function parentContext(parent: AgentMemory | undefined, sessionId: string, budget: ContextBudget): ChatMessage[] | null {
  if (parent === undefined) return null;
  const session = { sessionId };
  const recent = parent.l1(session).map((entry) => entry.task);
  const important = parent.l2(session).map((entry) => entry.task);
  const summaries = parent.l3(session).map((entry) => ({ text: entry.summary, sessionId: entry.sessionId }));
  if (recent.length + important.length + summaries.length === 0) return null;
  const tokens = Math.max(64, Math.floor(budget.tokens * budget.shares.inherited));
  const { messages } = assembleContext(
    { agentId: parent.agentId, sessionId, rolePrompt: '', recent, important, summaries, turn: [] },
    contextBudget({ tokens }),
  );
  // Its first message is the (empty) role prompt: the sub-agent has its own.
  return messages.slice(1);
}
