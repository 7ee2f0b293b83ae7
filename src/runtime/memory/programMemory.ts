import { z } from 'zod';
import { TroupeError, ValidationError } from '../../errors.js';
import type { AgentMemory, Fact } from '../../memory/index.js';
import { JsonValueSchema, TaskIdSchema, formatPath } from '../../task/index.js';
import type { MemoryHub } from './memoryHub.js';

// What a program puts into an agent's long-term memory (L4) and takes out of it, with no model
// turn: `rt.remember`, `rt.forget` and `rt.importMemory`, and the HTTP route and CLI command on them.

const importance = z.number().min(0).max(1);
const metadata = z.record(z.string(), JsonValueSchema);

/** A fact a program gives an agent (`rt.remember`). Text bounds (blank, `maxFactChars`) are the fact store's. */
export const RememberInputSchema = z
  .object({
    text: z.string(),
    /** The session it belongs to; absent, it is the agent's, for every session. */
    sessionId: TaskIdSchema.optional(),
    /** `session` (needs `sessionId`) or `agent`; by default `session` when a sessionId is given, else `agent`. */
    scope: z.enum(['session', 'agent']).optional(),
    importance: importance.default(0.7),
    /** Kept with the fact and returned with every search hit (for example the id of its source). */
    metadata: metadata.optional(),
  })
  .strict();
export type RememberInput = z.input<typeof RememberInputSchema>;

/** A fact among an import's items: `kind` may be left out. */
const FactItemSchema = RememberInputSchema.extend({ kind: z.literal('fact').optional() }).strict();

/** A turn of a conversation held elsewhere (a chat history): stored as it was said, never merged with another. */
const TurnItemSchema = z
  .object({
    kind: z.literal('turn'),
    /** Who said it; the fact's text starts with it (`Ana: …`), so a search by name finds it. */
    speaker: z.string().trim().min(1).max(64),
    text: z.string(),
    /** When it was said: milliseconds since the epoch or an ISO 8601 date-time; kept in the metadata as `at`. */
    at: z.union([z.number().int().nonnegative(), z.iso.datetime({ offset: true }).transform((value) => Date.parse(value))]).optional(),
    /** The conversation it belongs to (an id of the source's own); kept in the metadata. */
    conversation: z.string().min(1).max(200).optional(),
    sessionId: TaskIdSchema.optional(),
    scope: z.enum(['session', 'agent']).optional(),
    importance: importance.default(0.5),
    metadata: metadata.optional(),
  })
  .strict();

/** One item of `rt.importMemory`: a fact (`kind` absent or `fact`) or a conversation's turn (`kind: 'turn'`). */
export const ImportItemSchema = z.union([FactItemSchema, TurnItemSchema]);
export type ImportItem = z.input<typeof ImportItemSchema>;

/** The most problems an import's refusal names; the rest are counted. */
const maxProblemsNamed = 20;

/** A fact as a program sees it: what `rt.remember` and `rt.importMemory` return. */
export const RememberedFactSchema = z.object({
  id: z.string(),
  text: z.string(),
  scope: z.enum(['session', 'agent']),
  sessionId: z.string().nullable(),
  importance: z.number(),
  metadata: metadata.optional(),
  /** It was merged into a fact already held (whose id and text these are). */
  merged: z.boolean(),
});
export type RememberedFactView = z.infer<typeof RememberedFactSchema>;

/** What `rt.importMemory` did. */
export const ImportReportSchema = z.object({
  /** New facts stored, and facts merged into ones already held. */
  stored: z.number().int().nonnegative(),
  merged: z.number().int().nonnegative(),
  /** The facts of the items, in order, each with its item's index; a turn longer than `maxFactChars` makes several (one per part). */
  facts: z.array(RememberedFactSchema.extend({ item: z.number().int().nonnegative() })),
});
export type ImportReport = z.infer<typeof ImportReportSchema>;

/** The live agent's memory; `agent_terminated` when it is closed, `unknown_agent` when there is no such agent. */
async function memoryOf(hub: MemoryHub, agentId: string, known: (agentId: string) => boolean): Promise<AgentMemory> {
  const opening = hub.opened(agentId);
  if (opening !== undefined) return opening;
  if (!known(agentId)) throw new TroupeError('unknown_agent', `no agent "${agentId}"`, { context: { agentId } });
  throw new TroupeError('agent_terminated', `agent "${agentId}" is terminated: its memory is closed (spawn it again to give it memories)`, {
    context: { agentId },
  });
}

function viewOf(fact: Fact, merged: boolean): RememberedFactView {
  const { id, text, scope, sessionId, importance: weight } = fact;
  return { id, text, scope, sessionId, importance: weight, ...(fact.metadata === undefined ? {} : { metadata: fact.metadata }), merged };
}

type FactScope = 'session' | 'agent';

/** The fact store's record of a program's fact: scope from the session when not given. */
function newFact(input: {
  text: string;
  sessionId?: string;
  scope?: FactScope;
  importance: number;
  metadata?: Record<string, unknown>;
}): Record<string, unknown> {
  const scope = input.scope ?? (input.sessionId === undefined ? 'agent' : 'session');
  return {
    text: input.text,
    scope,
    sessionId: scope === 'session' ? (input.sessionId ?? null) : null,
    importance: input.importance,
    ...(input.metadata === undefined ? {} : { metadata: input.metadata }),
  };
}

/**
 * Cuts a turn's text into parts of at most `max` characters: at the last sentence end in the
 * second half of the limit, else at the last space there, else (a word that long) at the limit.
 */
export function turnParts(text: string, max: number): string[] {
  const parts: string[] = [];
  let rest = text.trim();
  while (rest.length > max) {
    const window = rest.slice(0, max + 1);
    const sentence = window.lastIndexOf('. ', max - 1);
    const space = window.lastIndexOf(' ', max);
    const end = sentence > max / 2 ? sentence + 1 : space > max / 2 ? space : max;
    parts.push(rest.slice(0, end).trim());
    rest = rest.slice(end).trim();
  }
  if (rest !== '') parts.push(rest);
  return parts;
}

/** The facts one checked item stores, each with whether it may merge into a close one. */
function factsOfItem(item: z.infer<typeof ImportItemSchema>, maxFactChars: number): { fact: Record<string, unknown>; merge: boolean }[] {
  if (item.kind !== 'turn') return [{ fact: newFact(item), merge: true }];
  const prefix = `${item.speaker}: `;
  const parts = turnParts(item.text, Math.max(1, maxFactChars - prefix.length));
  const base = {
    ...item.metadata,
    kind: 'turn',
    speaker: item.speaker,
    ...(item.at === undefined ? {} : { at: item.at }),
    ...(item.conversation === undefined ? {} : { conversation: item.conversation }),
  };
  // A blank turn is left to the fact store to refuse, naming the item.
  const texts = parts.length === 0 ? [item.text] : parts.map((part) => `${prefix}${part}`);
  return texts.map((text, part) => ({
    fact: newFact({ ...item, text, metadata: texts.length === 1 ? base : { ...base, part: part + 1, parts: texts.length } }),
    merge: false,
  }));
}

/** Checks every item; refuses them all, naming up to `maxProblemsNamed` (`items[4].speaker: …`), when any is bad. */
function checkItems(items: unknown, maxImportItems: number): z.infer<typeof ImportItemSchema>[] {
  if (!Array.isArray(items)) throw new ValidationError('items', 'must be an array of facts and turns');
  if (items.length > maxImportItems) {
    throw new TroupeError('invalid_input', `items: ${items.length} items, more than maxImportItems (${maxImportItems}); import them in parts`);
  }
  const checked: z.infer<typeof ImportItemSchema>[] = [];
  const problems: { item: number; field: string; message: string }[] = [];
  for (const [i, item] of items.entries()) {
    const parsed = ImportItemSchema.safeParse(item);
    if (parsed.success) checked.push(parsed.data);
    else {
      const issue = detailedIssue(parsed.error, item);
      problems.push({ item: i, field: `items[${i}]${issue.path === '' ? '' : `.${issue.path}`}`, message: issue.message });
    }
  }
  if (problems.length > 0) throw importRefusal(problems);
  return checked;
}

/** The issue to name: for a union, that of the branch the item's `kind` chose. */
function detailedIssue(error: z.ZodError, item: unknown): { path: string; message: string } {
  const [issue] = error.issues;
  if (issue?.code === 'invalid_union') {
    const branch = typeof item === 'object' && item !== null && (item as { kind?: unknown }).kind === 'turn' ? 1 : 0;
    const inner = issue.errors[branch]?.[0];
    if (inner !== undefined) return { path: formatPath(inner.path), message: inner.message };
  }
  return { path: formatPath(issue?.path ?? []), message: issue?.message ?? 'invalid' };
}

function importRefusal(problems: readonly { item: number; field: string; message: string }[]): TroupeError {
  const named = problems.slice(0, maxProblemsNamed).map((problem) => `${problem.field}: ${problem.message}`);
  const more = problems.length > maxProblemsNamed ? `; and ${problems.length - maxProblemsNamed} more` : '';
  return new TroupeError('invalid_input', `nothing imported: ${problems.length} bad item(s): ${named.join('; ')}${more}`, {
    context: { problems: problems.slice(0, maxProblemsNamed) },
  });
}

/** A fact store's refusal of one of the facts made from the items, named by its item. */
function namedByItem(error: unknown, itemOfFact: readonly number[]): unknown {
  if (!(error instanceof ValidationError)) return error;
  const match = /^facts\[(\d+)\]\.?(.*)$/.exec(error.field);
  if (match === null) return error;
  const item = itemOfFact[Number(match[1])] ?? 0;
  const field = `items[${item}]${match[2] === '' ? '' : `.${match[2]}`}`;
  return importRefusal([{ item, field, message: error.message.slice(error.field.length + 2) }]);
}

export interface ProgramMemoryDeps {
  readonly hub: MemoryHub;
  /** Whether the organisation knows the agent (live or terminated). */
  readonly known: (agentId: string) => boolean;
  readonly maxImportItems: number;
}

/** `rt.remember`: one fact into a live agent's L4; a near-duplicate is merged into the fact it repeats. */
export async function rememberForProgram(deps: ProgramMemoryDeps, agentId: string, input: RememberInput): Promise<RememberedFactView> {
  const checked = RememberInputSchema.safeParse(input);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    throw new ValidationError(formatPath(issue?.path ?? []) || 'fact', issue?.message ?? 'invalid');
  }
  const memory = await memoryOf(deps.hub, agentId, deps.known);
  try {
    const { fact, merged } = await memory.remember(newFact(checked.data) as Parameters<typeof memory.remember>[0]);
    return viewOf(fact, merged);
  } catch (error) {
    if (error instanceof ValidationError && error.field.startsWith('fact.')) {
      throw new ValidationError(error.field.slice('fact.'.length), error.message.slice(error.field.length + 2), { cause: error });
    }
    throw error;
  }
}

/** `rt.forget`: removes a fact from a live agent's L4; `unknown_fact` (saying where a merged one went) when it holds none of that id. */
export async function forgetForProgram(deps: ProgramMemoryDeps, agentId: string, factId: string): Promise<void> {
  const memory = await memoryOf(deps.hub, agentId, deps.known);
  if (await memory.forget(factId)) return;
  const holder = memory.mergedInto(factId);
  const where = holder === undefined ? '' : `: it was merged into ${holder.id} ("${holder.text.slice(0, 80)}"), which holds it now`;
  throw new TroupeError('unknown_fact', `agent ${agentId} holds no fact ${factId}${where}`, { context: { agentId, factId } });
}

/**
 * `rt.importMemory`: many facts and conversation turns into a live agent's L4, in order. Every
 * item is checked first: one bad item refuses them all, naming each bad one (`items[4].speaker`),
 * and nothing is stored. The facts are then written in transactions of a few hundred; a crash
 * part-way keeps those written before it.
 */
export async function importForProgram(deps: ProgramMemoryDeps, agentId: string, items: unknown): Promise<ImportReport> {
  const memory = await memoryOf(deps.hub, agentId, deps.known);
  return importItems((facts) => memory.rememberMany(facts), items, { maxImportItems: deps.maxImportItems, maxFactChars: deps.hub.maxFactChars });
}

/** What stores an import's facts, in order: an open memory's `rememberMany`, or a fact store's `addMany` (the CLI's, on a stopped society). */
export type StoreFacts = (facts: readonly { readonly fact: unknown; readonly merge: boolean }[]) => Promise<{ fact: Fact; merged: boolean }[]>;

/** Checks `items` (see `importForProgram`), makes their facts, and stores them with `store`. */
export async function importItems(store: StoreFacts, items: unknown, limits: { maxImportItems: number; maxFactChars: number }): Promise<ImportReport> {
  const checked = checkItems(items, limits.maxImportItems);
  const itemOfFact: number[] = [];
  const facts = checked.flatMap((item, i) =>
    factsOfItem(item, limits.maxFactChars).map((fact) => {
      itemOfFact.push(i);
      return fact;
    }),
  );
  let added: Awaited<ReturnType<StoreFacts>>;
  try {
    added = await store(facts);
  } catch (error) {
    throw namedByItem(error, itemOfFact);
  }
  const views = added.map(({ fact, merged }, i) => ({ ...viewOf(fact, merged), item: itemOfFact[i] ?? 0 }));
  const merged = views.filter((view) => view.merged).length;
  return { stored: views.length - merged, merged, facts: views };
}
