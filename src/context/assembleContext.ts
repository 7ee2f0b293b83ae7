import type { ChatMessage, Task } from '../task/index.js';
import { type Allotted, allocateShares } from './allocateShares.js';
import { type ContextBudget, type ContextBudgetInput, type SharedSource, contextBudget, sharedSources } from './contextBudget.js';
import { type ContextSources, checkSources } from './contextSources.js';
import type { Fitted } from './fitted.js';
import { fitInherited } from './inheritedContext.js';
import { type FilterCounts, type SessionItems, sessionItems } from './sessionFilter.js';
import { isReceivedRequest } from './taskMessage.js';
import { type TaskTier, fitTaskTier, messageOf } from './taskWindow.js';
import { type TextBlock, fitTextBlock } from './textBlock.js';
import { type TokenCounter, frameOf, replyPrimingTokens, sharedTokenCounter } from './tokenCounter.js';

/** What one shared source put into the context. */
export interface SourceReport {
  /** Items of the session the source had: Tasks, summaries, facts, the parent's messages (a text counts 1). */
  readonly given: number;
  readonly kept: number;
  readonly leftOut: number;
  /** A text shown only in part (the parent's context, given as text). */
  readonly cut: boolean;
  readonly tokens: number;
  /** Tokens it was finally allotted: its share, what flowed to it, and for `recent` the newest exchange. */
  readonly allotted: number;
}

export interface ContextReport extends FilterCounts {
  /** The budget, and the tokens of the messages built (frames and the reply's priming included). */
  readonly budget: number;
  readonly tokens: number;
  /**
   * The role prompt and the turn's own steps alone are over the budget. They are all there
   * (nothing else is), so `tokens` exceeds `budget`: the turn should compress its steps.
   */
  readonly overBudget: boolean;
  readonly rolePromptTokens: number;
  /** Tokens of the turn's own steps, frames included. */
  readonly turnTokens: number;
  /** Tokens of the newest L1 exchange, set aside before the shares (0 when there is none or it did not fit). */
  readonly pinnedTokens: number;
  readonly sources: Readonly<Record<SharedSource, SourceReport>>;
}

export interface BuiltContext {
  readonly messages: ChatMessage[];
  readonly tokens: number;
  readonly report: ContextReport;
}

export interface BuildContextOptions {
  /** Where token counts are cached; one shared counter by default. */
  readonly counter?: TokenCounter;
}

/**
 * The model's messages for one turn, from memory only, fitted to a token budget:
 *
 * 1. the role prompt and the turn's own steps (its prompt, every assistant and tool message so far)
 *    always, verbatim: they are the newest messages, and a resumed turn goes on from them;
 * 2. then the newest exchange of L1 (the last request the agent received and all after it), whole,
 *    when it fits in what is left;
 * 3. then every source its share of the rest (`ContextBudget.shares`), unused shares flowing on
 *    (see `allocateShares`). Past its share a source leaves out its oldest items first (retrieval:
 *    its least similar), with a note saying how many.
 *
 * In the order the model reads them: role prompt, inherited context, retrieved facts, L3
 * summaries, L2 Tasks, L1 Tasks, the turn's steps. Only session `sources.sessionId` is used.
 *
 * What the runtime calls before every model call, on its own memory's Tasks and its turn's steps,
 * with a budget checked once (`contextBudget`), and `turnTokens` when the caller keeps the count
 * of the turn's steps as they grow (`counter`'s; a long turn has many). The sources are not
 * checked: that would cost more each call than a step's context grows by (the turn's steps are
 * all checked again); they come from memory, which validated them. `buildContext` is the same for
 * sources nobody checked.
 */
export function assembleContext(
  sources: ContextSources,
  budget: ContextBudget,
  counter: TokenCounter = sharedTokenCounter,
  turnTokens: number = counter.messages(sources.turn),
): BuiltContext {
  const { tokens: limit, shares } = budget;
  const rolePrompt: ChatMessage = { role: 'system', content: sources.rolePrompt };
  // Counted by its text: the message is made anew each call, the prompt is the same.
  const rolePromptTokens = frameOf('system') + counter.text(sources.rolePrompt);
  const mandatory = replyPrimingTokens + rolePromptTokens + turnTokens;
  const available = Math.max(0, limit - mandatory);

  const items = sessionItems(sources);
  const recent: TaskTier = {
    tasks: items.recent,
    agentId: sources.agentId,
    leftOutNote: (n) => `[memory: ${n} earlier messages of this session are left out here]`,
  };
  const important: TaskTier = {
    tasks: items.important,
    agentId: sources.agentId,
    leftOutNote: (n) => `[memory: ${n} earlier important messages of this session are left out here]`,
  };
  const pinned = newestExchange(recent, available, counter);

  const fitted = allocateShares(available, shares, { recent: pinned.tokens }, (source, allotment): Fitted => {
    switch (source) {
      case 'recent':
        return fitTaskTier(recent, allotment, pinned.count, counter);
      case 'important':
        return fitTaskTier(important, allotment, 0, counter);
      case 'summaries':
        return fitTextBlock(summaryBlock(items), allotment, counter);
      case 'retrieval':
        return fitTextBlock(retrievalBlock(items), allotment, counter);
      case 'inherited':
        return fitInherited(sources.inherited, allotment, counter);
    }
  });

  const messages = [
    rolePrompt,
    ...(['inherited', 'retrieval', 'summaries', 'important', 'recent'] as const).flatMap((source) => fitted[source].messages),
    ...sources.turn,
  ];
  const tokens = mandatory + sharedSources.reduce((sum, source) => sum + fitted[source].tokens, 0);
  const given = givenCounts(sources, items);
  const report: ContextReport = {
    budget: limit,
    tokens,
    overBudget: mandatory > limit,
    rolePromptTokens,
    turnTokens,
    pinnedTokens: pinned.tokens,
    sources: Object.fromEntries(sharedSources.map((source) => [source, sourceReport(given[source], fitted[source])])) as Record<SharedSource, SourceReport>,
    otherSession: items.counts.otherSession,
    skipped: items.counts.skipped,
  };
  return { messages, tokens, report };
}

/**
 * `assembleContext` for sources and a budget nobody checked yet: refuses a bad one, naming its
 * field (`context.sources.turn[2].role: …`), then builds the context.
 *
 * @example
 * const { messages, report } = buildContext({ agentId: 'root', sessionId, rolePrompt, recent: memory.l1(), turn }, { tokens: 8_000 });
 */
export function buildContext(sources: ContextSources, budget: ContextBudgetInput = {}, options: BuildContextOptions = {}): BuiltContext {
  checkSources(sources);
  return assembleContext(sources, contextBudget(budget), options.counter ?? sharedTokenCounter);
}

/**
 * The newest exchange of a tier: the last request the agent received and every Task after it, with
 * their tokens (when the tier holds no such request, its newest Task alone); nothing when that is
 * more than `available`. The walk back stops once past `available`, so it never tokenises more
 * than fits.
 */
function newestExchange(tier: TaskTier, available: number, counter: TokenCounter): { count: number; tokens: number } {
  const none = { count: 0, tokens: 0 };
  const total = tier.tasks.length;
  let tokens = 0;
  let newest = 0;
  for (let i = total - 1; i >= 0; i--) {
    const task = tier.tasks[i] as Task;
    tokens += counter.message(messageOf(task, tier.agentId));
    if (i === total - 1) newest = tokens;
    if (isReceivedRequest(task, tier.agentId)) return tokens > available ? none : { count: total - i, tokens };
    if (tokens > available) return receivedBefore(tier, i) || newest > available ? none : { count: 1, tokens: newest };
  }
  return total === 0 ? none : { count: 1, tokens: newest };
}

/** Whether the tier holds a request the agent received before index `end` (looked for without rendering or tokenising anything). */
function receivedBefore(tier: TaskTier, end: number): boolean {
  for (let i = end - 1; i >= 0; i--) if (isReceivedRequest(tier.tasks[i] as Task, tier.agentId)) return true;
  return false;
}

const summaryBlock = (items: SessionItems): TextBlock => ({
  header: '[summaries of earlier work in this session, oldest first]',
  count: items.summaries.length,
  line: (i) => `- ${items.summaries[i]?.text ?? ''}`,
  keep: 'last',
  leftOutLine: (n: number) => `[${n} older summaries left out]`,
});

const retrievalBlock = (items: SessionItems): TextBlock => ({
  header: '[facts from your long-term memory that may bear on this task, most relevant first]',
  count: items.retrieval.length,
  line: (i) => {
    const hit = items.retrieval[i];
    return hit === undefined ? '' : `- ${hit.fact.text} (relevance ${hit.similarity.toFixed(2)})`;
  },
  keep: 'first',
  leftOutLine: null,
});

function givenCounts(sources: ContextSources, items: SessionItems): Record<SharedSource, number> {
  const inherited = sources.inherited;
  return {
    recent: items.recent.length,
    important: items.important.length,
    summaries: items.summaries.length,
    retrieval: items.retrieval.length,
    inherited: inherited === null || inherited === undefined || inherited.length === 0 ? 0 : typeof inherited === 'string' ? 1 : inherited.length,
  };
}

function sourceReport(given: number, fitted: Allotted): SourceReport {
  return { given, kept: fitted.kept, leftOut: fitted.leftOut, cut: fitted.cut, tokens: fitted.tokens, allotted: fitted.allotted };
}
