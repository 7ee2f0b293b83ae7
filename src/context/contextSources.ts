import { z } from 'zod';
import { AgentIdSchema, ChatMessageSchema, type ChatMessage, type Task, TaskIdSchema, parseOrThrow } from '../task/index.js';

/** An L4 fact found for the current Task; a `FactHit` of the memory's fact store has this shape. */
export interface RetrievalHit {
  readonly fact: { readonly text: string; readonly scope: 'session' | 'agent'; readonly sessionId: string | null };
  readonly similarity: number;
}

/** An L3 summary of an earlier Task. */
export interface SessionSummary {
  readonly text: string;
  readonly sessionId: string;
}

/**
 * What one turn's context is made of, as plain data (the memory tiers hand these over; the
 * builder knows nothing of their classes). Lists are oldest first unless said otherwise.
 */
export interface ContextSources {
  /** The agent whose context this is: it decides which side of each Task is the agent's own. */
  readonly agentId: string;
  /** Only this session's Tasks, summaries and facts are used (plus facts of `scope: 'agent'`). */
  readonly sessionId: string;
  /** The Task the turn answers: its messages are in `turn`, so memory's copies of it are skipped. */
  readonly currentTaskId?: string | null;
  /** The role's system prompt: always first, always whole. */
  readonly rolePrompt: string;
  /** Context the parent handed a sub-agent: its messages, or a text. */
  readonly inherited?: string | readonly ChatMessage[] | null;
  /** L4 facts found for the current Task, in any order: the most similar are kept. */
  readonly retrieval?: readonly RetrievalHit[];
  /** L3 summaries. */
  readonly summaries?: readonly SessionSummary[];
  /** L2: important full Tasks. */
  readonly important?: readonly Task[];
  /** L1: recent full Tasks. */
  readonly recent?: readonly Task[];
  /** The current turn so far, verbatim: the Task's prompt and every assistant and tool message since. */
  readonly turn: readonly ChatMessage[];
}

const RetrievalHitSchema = z.object({
  fact: z.object({ text: z.string(), scope: z.enum(['session', 'agent']), sessionId: TaskIdSchema.nullable() }),
  // Cosine similarity, but any finite number: float error can put a vector index's answer a hair past 1.
  similarity: z.number(),
});

// Lists that may be long (thousands of Tasks, hundreds of summaries) are only checked to be lists
// here: checking every element each turn would cost more than building the context. Their
// elements come from memory, which validated them when they were stored or read back.
const list = (what: string) => z.custom<readonly unknown[]>((value) => Array.isArray(value), `must be an array of ${what}`);

const ContextSourcesSchema = z
  .object({
    agentId: AgentIdSchema,
    sessionId: TaskIdSchema,
    currentTaskId: TaskIdSchema.nullish(),
    rolePrompt: z.string(),
    inherited: z.union([z.string(), z.array(ChatMessageSchema)]).nullish(),
    retrieval: z.array(RetrievalHitSchema).optional(),
    summaries: list('summaries').optional(),
    important: list('Tasks').optional(),
    recent: list('Tasks').optional(),
    turn: z.array(ChatMessageSchema),
  })
  .strict();

/**
 * Throws a ValidationError naming the first bad field (`context.sources.turn[2].role: …`). Only
 * checks: the builder goes on using the caller's own objects, so that a message it copies into the
 * context is the very one it was given (and its token count stays cached by identity).
 */
export function checkSources(sources: ContextSources): void {
  parseOrThrow(ContextSourcesSchema, sources, 'context.sources');
}
