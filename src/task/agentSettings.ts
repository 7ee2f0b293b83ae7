import { z } from 'zod';
import { type ToolPolicy, ToolPolicySchema } from './chat.js';

/** Per-agent limits that override the runtime's (`maxSteps`, `maxTaskTokens`, `maxTaskMs`, `maxToolCallsPerReply`). */
export const AgentLimitsSchema = z
  .object({
    maxSteps: z.number().int().positive().optional(),
    maxTaskTokens: z.number().int().positive().optional(),
    maxTaskMs: z.number().int().positive().optional(),
    maxToolCallsPerReply: z.number().int().positive().optional(),
  })
  .strict();
export type AgentLimits = Readonly<z.infer<typeof AgentLimitsSchema>>;

/**
 * What a child agent inherits from its parent unless its spawn overrides it (seed 003): the model
 * (a name of `createRuntime({ models })`; absent: the runtime's model), limits, the tool policy it
 * is held to on top of its role's, and the skills it may use (absent: every skill). Kept with the
 * agent's record as resolved at spawn, so a restart gives it the same.
 */
export const AgentSettingsSchema = z
  .object({
    model: z.string().min(1).max(64).optional(),
    limits: AgentLimitsSchema.optional(),
    tools: ToolPolicySchema.optional(),
    skills: z.array(z.string().min(1).max(64)).max(1_000).optional(),
  })
  .strict();
export type AgentSettings = Readonly<z.infer<typeof AgentSettingsSchema>>;

/** A child's settings: each of the parent's, unless the spawn says otherwise (limits field by field). */
export function inheritSettings(parent: AgentSettings | undefined, override: AgentSettings | undefined): AgentSettings {
  const from = parent ?? {};
  const own = override ?? {};
  const limits = from.limits === undefined && own.limits === undefined ? undefined : { ...from.limits, ...own.limits };
  const model = own.model ?? from.model;
  const tools = own.tools ?? from.tools;
  const skills = own.skills ?? from.skills;
  return {
    ...(model === undefined ? {} : { model }),
    ...(limits === undefined ? {} : { limits }),
    ...(tools === undefined ? {} : { tools }),
    ...(skills === undefined ? {} : { skills }),
  };
}

type ApprovalRules = NonNullable<ToolPolicy['approvals']>;

/** Both approval rules at once: a call waits when either requires it, and runs unasked only when each skips it. */
function bothApprovals(a: ApprovalRules, b: ApprovalRules): ApprovalRules {
  const require = [...new Set([...(a.require ?? []), ...(b.require ?? [])])];
  const skip = a.skip === undefined ? b.skip : b.skip === undefined ? a.skip : a.skip.filter((name) => b.skip?.includes(name));
  return { ...(require.length === 0 ? {} : { require }), ...(skip === undefined ? {} : { skip: [...skip] }) };
}

/** Names both lists allow: `allow` where each gives one (undefined: any), `deny` of either. */
function bothLists(
  a: { readonly allow?: readonly string[] | undefined; readonly deny?: readonly string[] | undefined },
  b: { readonly allow?: readonly string[] | undefined; readonly deny?: readonly string[] | undefined },
): { allow?: string[]; deny?: string[] } {
  const allow = a.allow === undefined ? b.allow : b.allow === undefined ? a.allow : a.allow.filter((name) => b.allow?.includes(name));
  const deny = [...new Set([...(a.deny ?? []), ...(b.deny ?? [])])];
  return { ...(allow === undefined ? {} : { allow: [...allow] }), ...(deny.length === 0 ? {} : { deny }) };
}

/** Both policies at once: a tool, and a skill, is allowed only when each allows it. */
export function intersectPolicies(a: ToolPolicy | undefined, b: ToolPolicy | undefined): ToolPolicy | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  const rememberScopes = a.rememberScopes ?? b.rememberScopes;
  // A graph only when both allow it: an agent's settings may narrow what its role allows, never widen it.
  const graphs = a.graphs === undefined ? b.graphs : b.graphs === undefined ? a.graphs : a.graphs.filter((graph) => b.graphs?.includes(graph));
  const skills = a.skills === undefined ? b.skills : b.skills === undefined ? a.skills : bothLists(a.skills, b.skills);
  const approvals = a.approvals === undefined ? b.approvals : b.approvals === undefined ? a.approvals : bothApprovals(a.approvals, b.approvals);
  return {
    ...bothLists(a, b),
    ...(rememberScopes === undefined ? {} : { rememberScopes }),
    ...(graphs === undefined ? {} : { graphs }),
    ...(skills === undefined ? {} : { skills }),
    ...(approvals === undefined ? {} : { approvals }),
  };
}
/** Settings as a caller writes them (`rt.spawn`), before they are checked. */
export type AgentSettingsInput = z.input<typeof AgentSettingsSchema>;
