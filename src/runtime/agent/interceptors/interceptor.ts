import { z } from 'zod';
import type { AssistantMessage, ChatMessage, Task, ToolCall } from '../../../task/index.js';
import type { ToolResult } from '../../../tools/index.js';

/** What every hook is told: whose turn, for which Task, and a signal aborted when its time is up or the turn stops. */
export interface InterceptorContext {
  readonly agentId: string;
  /** The agent's role (`root` for the root agent). */
  readonly role: string;
  /** The Task whose turn this is. */
  readonly task: Task;
  /** Aborted when the hook outlives its `timeoutMs` or the turn is stopped. */
  readonly signal: AbortSignal;
}

/** What a tool hook is told besides the context: the call as the model wrote it. */
export interface ToolCallContext extends InterceptorContext {
  readonly call: ToolCall;
}

/**
 * A hook's decision. Nothing (or `{ pass: true }`) lets the value through as it is; `{ change }`
 * replaces it (checked against the value's schema: a change that does not fit stops the chain);
 * `{ stop }` ends the chain with a reason, and what that does depends on the hook (see Interceptor).
 */
export type InterceptorVerdict<T> = undefined | { readonly pass: true } | { readonly change: T } | { readonly stop: string };

/** A hook may also return nothing at all (a function with no `return`), which passes like `undefined`. */
type Hook<C, T> = (context: C, value: T) => MaybeVerdict<T> | Promise<MaybeVerdict<T>>;
// eslint-disable-next-line @typescript-eslint/no-invalid-void-type -- a hook written as a block with no return is typed void
type MaybeVerdict<T> = InterceptorVerdict<T> | void;

/** The prompt a turn starts from: the Task's text as the model will read it. */
export interface TurnPrompt {
  readonly text: string;
}

/** What the next model call sends: the messages (the tools offered are the policy's, not a hook's). */
export interface ModelCallRequest {
  readonly messages: readonly ChatMessage[];
}

/** The answer about to leave the turn. */
export interface TurnAnswer {
  readonly text: string;
}

/**
 * One link of the chain that runs around every turn, in the order given to `createRuntime`, each
 * hook seeing what the one before let through. Each hook is optional; a stop means:
 * - `beforeTurn`: the Task fails (`interceptor_stopped`) before any model call;
 * - `beforeModelCall`, `afterModelReply`: the turn fails, the reply unused;
 * - `beforeToolCall`: the call does not run; the model reads the reason as the call's error result;
 * - `afterToolResult`: the model reads the reason instead of the result;
 * - `beforeAnswer`: the Task fails and the answer never leaves (it was streamed to observers as
 *   thinking while the model wrote it).
 * A hook that throws, returns something that is no verdict, or outlives `timeoutMs` stops the
 * chain too: an interceptor that cannot decide never lets work through unchecked. `beforeTurn`
 * passes or stops, and a change from it stops the turn: the prompt is what finds an interrupted
 * turn again after a restart; `beforeModelCall` changes what the model reads.
 */
export interface Interceptor {
  /** Named in logs and in every stop's reason. */
  readonly name: string;
  /** Runs only in the turns of agents of these roles; every agent's when absent. */
  readonly roles?: readonly string[];
  /** Longest one hook call may take; the runtime's `interceptorTimeoutMs` when absent. */
  readonly timeoutMs?: number;
  readonly beforeTurn?: Hook<InterceptorContext, TurnPrompt>;
  readonly beforeModelCall?: Hook<InterceptorContext, ModelCallRequest>;
  readonly afterModelReply?: Hook<InterceptorContext, AssistantMessage>;
  readonly beforeToolCall?: Hook<ToolCallContext, ToolCall>;
  readonly afterToolResult?: Hook<ToolCallContext, ToolResult>;
  readonly beforeAnswer?: Hook<InterceptorContext, TurnAnswer>;
}

export type HookName = 'beforeTurn' | 'beforeModelCall' | 'afterModelReply' | 'beforeToolCall' | 'afterToolResult' | 'beforeAnswer';
const hookNames: readonly HookName[] = ['beforeTurn', 'beforeModelCall', 'afterModelReply', 'beforeToolCall', 'afterToolResult', 'beforeAnswer'];

/** Most interceptors one runtime takes: each runs on every step of every turn it applies to. */
const maxInterceptors = 32;
/** Longest `timeoutMs` an interceptor may ask for. */
const maxInterceptorTimeoutMs = 600_000;

const hook = z.custom<(...args: never[]) => unknown>((value) => typeof value === 'function', 'must be a function').optional();

/** The runtime's check of the interceptors it is given; the hooks' own results are checked as they run. */
export const InterceptorsSchema = z
  .array(
    z
      .object({
        name: z.string().min(1).max(64),
        roles: z.array(z.string().min(1).max(64)).min(1).max(256).optional(),
        timeoutMs: z.number().int().positive().max(maxInterceptorTimeoutMs).optional(),
        beforeTurn: hook,
        beforeModelCall: hook,
        afterModelReply: hook,
        beforeToolCall: hook,
        afterToolResult: hook,
        beforeAnswer: hook,
      })
      .strict()
      .refine(
        (value) => hookNames.some((name) => value[name] !== undefined),
        'has no hook (beforeTurn, beforeModelCall, afterModelReply, beforeToolCall, afterToolResult or beforeAnswer)',
      ),
  )
  .max(maxInterceptors)
  .refine((list) => new Set(list.map((interceptor) => interceptor.name)).size === list.length, 'names must differ');
