import { z } from 'zod';
import type { Clock } from '../../../clock.js';
import type { Logger } from '../../../logger.js';
import { AssistantMessageSchema, ChatMessageSchema, ToolCallSchema } from '../../../task/index.js';
import { ToolResultSchema } from '../../../tools/index.js';
import type { HookName, Interceptor, InterceptorContext, ToolCallContext } from './interceptor.js';

/** What a hook point gives and gets back, by hook. */
interface HookValues {
  beforeTurn: { readonly text: string };
  beforeModelCall: { readonly messages: readonly z.infer<typeof ChatMessageSchema>[] };
  afterModelReply: z.infer<typeof AssistantMessageSchema>;
  beforeToolCall: z.infer<typeof ToolCallSchema>;
  afterToolResult: z.infer<typeof ToolResultSchema>;
  beforeAnswer: { readonly text: string };
}

/** What a change must fit, by hook: the same schema the value has everywhere else. */
const changeSchemas: { readonly [H in HookName]: z.ZodType<HookValues[H]> } = {
  beforeTurn: z.object({ text: z.string().max(1_000_000) }).strict(),
  beforeModelCall: z.object({ messages: z.array(ChatMessageSchema).min(1).max(100_000) }).strict(),
  afterModelReply: AssistantMessageSchema.strict(),
  beforeToolCall: ToolCallSchema.strict(),
  afterToolResult: ToolResultSchema,
  beforeAnswer: z.object({ text: z.string().max(1_000_000) }).strict(),
};

const VerdictSchema = z.union([
  z.undefined(),
  z.object({ pass: z.literal(true) }).strict(),
  z.object({ change: z.unknown() }).strict(),
  z.object({ stop: z.string().min(1).max(4_000) }).strict(),
]);

/** The chain's outcome at one hook point: the value to go on with, or who stopped it and why. */
export type ChainOutcome<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly interceptor: string; readonly reason: string; readonly guardrail: boolean };

type ContextOf<H extends HookName> = H extends 'beforeToolCall' | 'afterToolResult' ? Omit<ToolCallContext, 'signal'> : Omit<InterceptorContext, 'signal'>;

const timedOut = Symbol('timed out');

interface ChainOptions {
  readonly clock: Clock;
  readonly logger: Logger;
  readonly timeoutMs: number;
  readonly guardrails?: ReadonlySet<Interceptor>;
}

/**
 * The interceptors that apply to one role, run in order at each hook point. Each hook call is
 * given a copy of the value (a hook changes things only through its verdict), a signal, and
 * `timeoutMs` of the runtime's clock; what it returns is checked before the next hook sees it.
 */
export class InterceptorChain {
  readonly #interceptors: readonly Interceptor[];
  readonly #options: ChainOptions;

  /** `options.guardrails`: those of `interceptors` made from guardrails (see guardrailInterceptors), whose stops trip. */
  constructor(interceptors: readonly Interceptor[], options: ChainOptions) {
    this.#interceptors = interceptors;
    this.#options = options;
  }

  /** The chain an agent of `role` runs. */
  forRole(role: string): InterceptorChain {
    const mine = this.#interceptors.filter((interceptor) => interceptor.roles === undefined || interceptor.roles.includes(role));
    return mine.length === this.#interceptors.length ? this : new InterceptorChain(mine, this.#options);
  }

  /** Whether a guardrail checks the answers: then the model's streamed text is held back until the answer passed. */
  holdsAnswers(): boolean {
    return this.#interceptors.some((interceptor) => interceptor.beforeAnswer !== undefined && this.#options.guardrails?.has(interceptor) === true);
  }

  /** Whether any interceptor has this hook: without one, the hook point costs nothing. */
  has(hook: HookName): boolean {
    return this.#interceptors.some((interceptor) => interceptor[hook] !== undefined);
  }

  async run<H extends HookName>(hook: H, context: ContextOf<H>, value: HookValues[H], turnSignal: AbortSignal): Promise<ChainOutcome<HookValues[H]>> {
    let current = value;
    for (const interceptor of this.#interceptors) {
      const fn = interceptor[hook] as ((context: unknown, value: unknown) => unknown) | undefined;
      if (fn === undefined) continue;
      const verdict = await this.#call(interceptor, fn, context, structuredClone(current), turnSignal);
      turnSignal.throwIfAborted();
      const refused = (reason: string): ChainOutcome<HookValues[H]> => {
        this.#options.logger.warn(
          { agentId: context.agentId, taskId: context.task.id, interceptor: interceptor.name, hook, reason },
          'an interceptor stopped the work',
        );
        return { ok: false, interceptor: interceptor.name, reason, guardrail: this.#options.guardrails?.has(interceptor) === true };
      };
      if (verdict === timedOut) return refused(`${hook} took longer than ${interceptor.timeoutMs ?? this.#options.timeoutMs} ms`);
      if ('threw' in verdict) return refused(`${hook} failed: ${verdict.threw}`);
      const checked = VerdictSchema.safeParse(verdict.returned);
      if (!checked.success) return refused(`${hook} returned no verdict (undefined, { pass: true }, { change } or { stop: "reason" })`);
      const decided = checked.data;
      if (decided === undefined || 'pass' in decided) continue;
      if ('stop' in decided) return refused(decided.stop);
      const changed = changeSchemas[hook].safeParse(decided.change);
      if (!changed.success) return refused(`${hook} changed the value to one that does not fit: ${z.prettifyError(changed.error).replaceAll('\n', '; ')}`);
      if (hook === 'beforeToolCall' && !sameCall(current, changed.data)) return refused(`${hook} may change a call's arguments, not its id or tool`);
      // The prompt is what finds an interrupted turn again after a restart, so it stays as the Task has it.
      if (hook === 'beforeTurn')
        return refused(`${hook} may let a turn start or stop it, not change its prompt (change what the model reads in beforeModelCall)`);
      current = changed.data;
    }
    return { ok: true, value: current };
  }

  async #call(
    interceptor: Interceptor,
    fn: (context: unknown, value: unknown) => unknown,
    context: object,
    value: unknown,
    turnSignal: AbortSignal,
  ): Promise<typeof timedOut | { readonly returned: unknown } | { readonly threw: string }> {
    const { clock } = this.#options;
    const controller = new AbortController();
    const stopWithTurn = (): void => controller.abort(turnSignal.reason);
    turnSignal.addEventListener('abort', stopWithTurn, { once: true });
    let timer: ReturnType<Clock['setTimeout']> | undefined;
    const late = new Promise<typeof timedOut>((resolve) => {
      timer = clock.setTimeout(() => {
        controller.abort(new Error(`interceptor ${interceptor.name} timed out`));
        resolve(timedOut);
      }, interceptor.timeoutMs ?? this.#options.timeoutMs);
    });
    const called = (async () => ({ returned: await fn({ ...context, signal: controller.signal }, value) }))().catch((error: unknown) => ({
      threw: error instanceof Error ? error.message : String(error),
    }));
    try {
      return await Promise.race([called, late]);
    } finally {
      if (timer !== undefined) clock.clearTimeout(timer);
      turnSignal.removeEventListener('abort', stopWithTurn);
    }
  }
}

function sameCall(before: unknown, after: unknown): boolean {
  const [a, b] = [before as { id: string; name: string }, after as { id: string; name: string }];
  return a.id === b.id && a.name === b.name;
}
