import { z } from 'zod';
import { type ModelClient, collectReply } from '../../../llm/index.js';
import type { Interceptor, InterceptorContext } from './interceptor.js';

/** What a guardrail says of a text: it passes, or it trips, saying why. */
export type GuardrailVerdict = { readonly tripped: false } | { readonly tripped: true; readonly reason: string };

/**
 * A check on what goes into a turn or comes out of it:
 * - `input`: the Task's prompt, before its turn starts (before any model call), or, with
 *   `parallel`, alongside the first model call: then no tool runs and no answer leaves before it passes;
 * - `toolResult`: a tool's result, before the model reads it or observers see it;
 * - `answer`: the answer, before it leaves; while one applies, the model's streamed text is held
 *   back from observers until the answer has passed.
 * A tripped guardrail fails the Task with `guardrail_tripped`, naming it and its reason, or, for
 * an output with a `replacement`, puts that in the output's place. A check that throws or
 * outlives its time trips it.
 */
export interface Guardrail {
  readonly name: string;
  readonly on: 'input' | 'toolResult' | 'answer';
  /** Checks only the turns of agents of these roles; every agent's when absent. */
  readonly roles?: readonly string[];
  /** Longest one check may take; the runtime's `interceptorTimeoutMs` when absent. */
  readonly timeoutMs?: number;
  /** Input only: see above. */
  readonly parallel?: boolean;
  /** Outputs only: what the answer or tool result becomes when the guardrail trips, instead of failing the Task. */
  readonly replacement?: string;
  readonly check: (context: InterceptorContext, text: string) => GuardrailVerdict | Promise<GuardrailVerdict>;
}

/** The runtime's check of the guardrails it is given. */
export const GuardrailsSchema = z
  .array(
    z
      .object({
        name: z.string().min(1).max(64),
        on: z.enum(['input', 'toolResult', 'answer']),
        roles: z.array(z.string().min(1).max(64)).min(1).max(256).optional(),
        timeoutMs: z.number().int().positive().max(600_000).optional(),
        parallel: z.boolean().optional(),
        replacement: z.string().max(100_000).optional(),
        check: z.custom<Guardrail['check']>((value) => typeof value === 'function', 'must be a function'),
      })
      .strict()
      .refine((value) => value.on === 'input' || value.parallel !== true, 'only an input guardrail runs in parallel')
      .refine((value) => value.on !== 'input' || value.replacement === undefined, 'an input guardrail has no replacement: a tripped input fails the Task'),
  )
  .max(32)
  .refine((list) => new Set(list.map((guardrail) => guardrail.name)).size === list.length, 'names must differ');

const VerdictSchema = z.union([
  z.object({ tripped: z.literal(false) }).strict(),
  z.object({ tripped: z.literal(true), reason: z.string().min(1).max(4_000) }).strict(),
]);

/** Runs a guardrail's check and reads its verdict; anything but a verdict trips it. */
async function verdictOf(guardrail: Guardrail, context: InterceptorContext, text: string): Promise<GuardrailVerdict> {
  const checked = VerdictSchema.safeParse(await guardrail.check(context, text));
  return checked.success ? checked.data : { tripped: true, reason: 'its check returned no verdict ({ tripped: false } or { tripped: true, reason })' };
}

/**
 * The guardrails as interceptors, run after the runtime's own so that they check what would
 * really go out. A parallel input check is started when the turn starts and awaited before the
 * first tool call and before the answer: what it guards never happens before it has passed.
 */
export function guardrailInterceptors(guardrails: readonly Guardrail[]): Interceptor[] {
  return guardrails.map((guardrail): Interceptor => {
    const base = {
      name: guardrail.name,
      ...(guardrail.roles === undefined ? {} : { roles: guardrail.roles }),
      ...(guardrail.timeoutMs === undefined ? {} : { timeoutMs: guardrail.timeoutMs }),
    };
    const stopIfTripped = (verdict: GuardrailVerdict) => (verdict.tripped ? { stop: verdict.reason } : undefined);
    const { replacement } = guardrail;
    // A tripped output fails the Task, or becomes the replacement when there is one.
    const checkOutput = async <T>(context: InterceptorContext, text: string, replaced: T) => {
      const verdict = await verdictOf(guardrail, context, text);
      if (!verdict.tripped) return undefined;
      return replacement === undefined ? { stop: verdict.reason } : { change: replaced };
    };
    if (guardrail.on === 'toolResult')
      return { ...base, afterToolResult: (context, result) => checkOutput(context, result.content, { content: replacement ?? '', isError: true }) };
    if (guardrail.on === 'answer') return { ...base, beforeAnswer: (context, answer) => checkOutput(context, answer.text, { text: replacement ?? '' }) };
    if (guardrail.parallel !== true) return { ...base, beforeTurn: async (context, prompt) => stopIfTripped(await verdictOf(guardrail, context, prompt.text)) };
    // Keyed by the Task object a turn carries through every hook; gone with it.
    const running = new WeakMap<object, Promise<GuardrailVerdict>>();
    const settled = async (context: InterceptorContext) => stopIfTripped((await running.get(context.task)) ?? { tripped: false });
    return {
      ...base,
      beforeTurn: (context, prompt) => {
        // The check outlives this hook, so it is not given the hook's signal.
        const { signal: _signal, ...rest } = context;
        const check = verdictOf(guardrail, { ...rest, signal: new AbortController().signal }, prompt.text).catch((error: unknown) => ({
          tripped: true as const,
          reason: `its check failed: ${error instanceof Error ? error.message : String(error)}`,
        }));
        running.set(context.task, check);
        return undefined;
      },
      beforeToolCall: settled,
      beforeAnswer: settled,
    };
  });
}

const ModelVerdictSchema = z.object({ tripped: z.boolean(), reason: z.string().max(4_000).optional() });

/**
 * A guardrail whose check is a model call: `instructions` say what to look for; the model is asked
 * for JSON `{"tripped": true|false, "reason": "…"}`, and a reply that is not such JSON trips it.
 */
export function modelGuardrail(options: Omit<Guardrail, 'check'> & { readonly model: ModelClient; readonly instructions: string }): Guardrail {
  const { model, instructions, ...rest } = options;
  const system = `${instructions}\n\nReply with JSON only, nothing else: {"tripped": true or false, "reason": "why, when tripped"}.`;
  return {
    ...rest,
    check: async (context, text) => {
      const reply = await collectReply(
        model.chat(
          {
            messages: [
              { role: 'system', content: system },
              { role: 'user', content: text },
            ],
            tools: [],
          },
          { signal: context.signal },
        ),
      );
      const body = reply.message.content.trim().replace(/^```(?:json)?\s*|\s*```$/g, '');
      let parsed: unknown;
      try {
        parsed = JSON.parse(body);
      } catch {
        parsed = undefined;
      }
      const verdict = ModelVerdictSchema.safeParse(parsed);
      if (!verdict.success) return { tripped: true, reason: `the guardrail's model gave no verdict: ${JSON.stringify(body.slice(0, 200))}` };
      return verdict.data.tripped ? { tripped: true, reason: verdict.data.reason ?? 'the model found the text against its instructions' } : { tripped: false };
    },
  };
}
