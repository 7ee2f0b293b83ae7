import {
  type ContextBudget,
  type ContextReport,
  type FittedTurn,
  type SessionSummary,
  assembleContext,
  compressTurnSteps,
  contextWarning,
  fitTurnSteps,
  roomForTurn,
  sharedTokenCounter,
} from '../../../context/index.js';
import type { AgentMemory, FactHit } from '../../../memory/index.js';
import { type ChatMessage, type Task, taskAsPrompt, taskText } from '../../../task/index.js';
import type { CompressibleConversation } from '../../../tools/index.js';
import type { ConversationSink } from '../../journal/journal.js';
import { openingSteps } from './handedConversation.js';

/** Tokens kept free of the turn's steps for the warning a call may end with (see `request`): a warning is about 40. */
const warningReserve = 64;

/** The system message a turn gets when its steps pass their maximum length. */
export function lengthWarning(messages: number, max: number): string {
  return `[warning] Your conversation has ${messages} messages (max ${max}). ` + 'Call compress_context with a summary of what matters so far to shorten it.';
}

/** A turn over its length: the text the model reads, and whether the turn just went over. */
export interface LengthWarning {
  readonly text: string;
  readonly first: boolean;
}

/** What a lane's turn works in: the messages the model is sent, and where the turn's steps go. */
export interface TurnContext extends CompressibleConversation {
  /** The model's messages now: built from memory (this session only) around the turn's own steps. */
  readonly messages: readonly ChatMessage[];
  /** The turn's own steps, verbatim: its prompt, then every assistant and tool message since. */
  readonly steps: readonly ChatMessage[];
  /** A new turn on `task`: the last turn's steps go (its exchange is in memory now), the prompt is the first step, L4 is searched for it. */
  begin(task: Task): Promise<void>;
  /** A turn a restart interrupted: its steps stay; L4 is searched for it again. */
  resume(task: Task): Promise<void>;
  /** The session is idle and let go: its last turn's steps go, from memory and from the store (its exchanges are in the agent's memory). */
  forget(): void;
  append(...messages: ChatMessage[]): void;
  /** The request's messages before the next model call, with `warning` (when not null) read last and counted in the budget. */
  request(warning: string | null): readonly ChatMessage[];
  /**
   * Before the next model call: when the turn's own steps leave no room under the budget (a long
   * tool loop), the older ones are replaced by a summary and the newest kept, down to the share a
   * turn may take before it is warned (see fitTurnSteps); null when they fit.
   */
  fitToBudget(): FittedTurn | null;
  /**
   * What to tell the model before its next call: its turn is long enough to compress (null:
   * nothing); `first` when the turn was not over at the call before (it began, or was compressed, since).
   */
  warning(maxMessages: number): LengthWarning | null;
}

/** What a session's context is built from. */
export interface MemoryContextDeps {
  readonly agentId: string;
  readonly sessionId: string;
  readonly rolePrompt: string;
  /** What the context shows of skills in this session (their list, the active ones' instructions), after the role prompt; '' for none. */
  readonly skills?: (sessionId: string) => string;
  /** The agent's memory once open (turns wait for it in `begin`). */
  readonly memory: () => Promise<AgentMemory> | undefined;
  /** The parent's context in this session, for a sub-agent (null: none). */
  readonly inherited: (sessionId: string) => readonly ChatMessage[] | null;
  readonly budget: ContextBudget;
  /** L4 facts retrieved for each turn's Task. */
  readonly retrieve: number;
  /** How close (similarity) a fact must be to the Task to enter the context. */
  readonly minRelevance: number;
  /** Keeps the steps (under `agentId/sessionId` in the store), so an interrupted turn resumes. */
  readonly sink: ConversationSink;
  /** The steps stored when the agent last ran, if any. */
  readonly stored: readonly ChatMessage[];
}

/** A session's share of an agent's memory, as of one version of it. */
interface SessionView {
  readonly memory: AgentMemory | undefined;
  readonly version: number;
  readonly recent: readonly Task[];
  readonly important: readonly Task[];
  readonly summaries: readonly SessionSummary[];
}

const emptyView: SessionView = { memory: undefined, version: 0, recent: [], important: [], summaries: [] };

/**
 * One session's context of one agent. Only the turn's own steps are kept here (and in the store,
 * for a resume); everything before the turn comes from memory each time the model is called:
 * the role prompt, the parent's context, L4 facts found for the Task, then L3 summaries, L2 and
 * L1 Tasks of this session, fitted to the token budget by `assembleContext`.
 */
export class MemoryContext implements TurnContext {
  readonly #deps: MemoryContextDeps;
  #steps: ChatMessage[];
  /** Tokens of `#steps`, kept as steps are appended: a turn's fit is checked before every model call (null: count them again). */
  #stepTokens: number | null = null;
  #task: Task | null = null;
  #memory: AgentMemory | undefined;
  #hits: readonly FactHit[] = [];
  #inherited: readonly ChatMessage[] | null = null;
  #report: ContextReport | undefined;
  #view: SessionView | undefined;
  /** The last call's warning found the turn over: the next one is not its first. */
  #over = false;

  constructor(deps: MemoryContextDeps) {
    this.#deps = deps;
    this.#steps = fromLastPrompt(deps.stored);
  }

  get steps(): readonly ChatMessage[] {
    return this.#steps;
  }

  get length(): number {
    return this.#steps.length;
  }

  get messages(): readonly ChatMessage[] {
    return this.request(null);
  }

  /** The role prompt as the model reads it: with what the context shows of skills in this session. */
  #rolePrompt(): string {
    const skills = this.#deps.skills?.(this.#deps.sessionId) ?? '';
    return skills === '' ? this.#deps.rolePrompt : `${this.#deps.rolePrompt}\n\n${skills}`;
  }

  request(warning: string | null): readonly ChatMessage[] {
    const { agentId, sessionId } = this.#deps;
    const rolePrompt = this.#rolePrompt();
    // The warning is read last and counted in the budget: the rest is fitted to what it leaves.
    const last: ChatMessage | null = warning === null ? null : { role: 'system', content: warning };
    const budget = last === null ? this.#deps.budget : { ...this.#deps.budget, tokens: this.#deps.budget.tokens - sharedTokenCounter.message(last) };
    const currentTaskId = this.#task?.id ?? null;
    const { recent, important, summaries } = this.#sessionView();
    const shown = beforeTheTurn(agentId, currentTaskId, recent, important);
    const built = assembleContext(
      {
        agentId,
        sessionId,
        currentTaskId,
        rolePrompt,
        inherited: this.#inherited,
        retrieval: this.#hits,
        summaries,
        important: important.filter(shown),
        recent: recent.filter(shown),
        turn: this.#steps,
      },
      budget,
      sharedTokenCounter,
      this.#turnTokens(),
    );
    this.#report = built.report;
    return last === null ? built.messages : [...built.messages, last];
  }

  fitToBudget(): FittedTurn | null {
    const budget = this.#deps.budget;
    const room = roomForTurn(budget.tokens - warningReserve, this.#rolePrompt());
    if (this.#turnTokens() <= room) return null;
    const fitted = fitTurnSteps(this.#steps, room, Math.floor(room * budget.warnAtTurnShare));
    if (fitted === null) return null;
    this.#replaceSteps(fitted.steps);
    return fitted;
  }

  /**
   * This session's L1, L2 and L3, made again only when memory changed since: finding a session's
   * entries walks every entry of the agent (L3 holds 500 by default), and a turn reads them before
   * every model call while they seldom change.
   */
  #sessionView(): SessionView {
    const memory = this.#memory;
    if (memory === undefined) return emptyView;
    const view = this.#view;
    if (view !== undefined && view.memory === memory && view.version === memory.version) return view;
    const session = { sessionId: this.#deps.sessionId };
    const made: SessionView = {
      memory,
      version: memory.version,
      recent: memory.l1(session).map((entry) => entry.task),
      important: memory.l2(session).map((entry) => entry.task),
      summaries: memory.l3(session).map((entry) => ({ text: entry.summary, sessionId: entry.sessionId })),
    };
    this.#view = made;
    return made;
  }

  async begin(task: Task): Promise<void> {
    const prompt: ChatMessage = { role: 'user', content: taskAsPrompt(task) };
    this.#over = false;
    this.#replaceSteps(openingSteps(task, prompt));
    await this.#prepare(task);
  }

  async resume(task: Task): Promise<void> {
    await this.#prepare(task);
  }

  forget(): void {
    this.#steps = [];
    this.#stepTokens = 0;
    this.#deps.sink.cleared();
  }

  append(...messages: ChatMessage[]): void {
    this.#steps = [...this.#steps, ...messages];
    if (this.#stepTokens !== null) this.#stepTokens += sharedTokenCounter.messages(messages);
    this.#deps.sink.appended(messages);
  }

  /** Keeps the turn's prompt (the Task it answers), a summary and the recent steps (see `compressTurnSteps`). */
  compress(summary: string, keepRecent: number): { removed: number; kept: number } {
    const [first, ...rest] = this.#steps;
    const prompt = first?.role === 'user' ? [first] : [];
    const { messages, removed, kept } = compressTurnSteps(prompt.length === 0 ? this.#steps : rest, summary, keepRecent);
    this.#replaceSteps([...prompt, ...messages]);
    return { removed, kept: kept + prompt.length };
  }

  #turnTokens(): number {
    this.#stepTokens ??= sharedTokenCounter.messages(this.#steps);
    return this.#stepTokens;
  }

  #replaceSteps(steps: ChatMessage[]): void {
    this.#steps = steps;
    this.#stepTokens = null;
    this.#deps.sink.replaced([...steps]);
  }

  warning(maxMessages: number): LengthWarning | null {
    const report = this.#report;
    const text =
      this.#steps.length > maxMessages
        ? lengthWarning(this.#steps.length, maxMessages)
        : report === undefined
          ? null
          : contextWarning(report.turnTokens, this.#deps.budget);
    const first = !this.#over;
    this.#over = text !== null;
    return text === null ? null : { text, first };
  }

  /** Waits for memory to open, then finds the Task's facts and the parent's context for this turn. */
  async #prepare(task: Task): Promise<void> {
    this.#task = task;
    this.#memory = await this.#deps.memory();
    const { retrieve, sessionId, minRelevance } = this.#deps;
    this.#hits =
      this.#memory === undefined || retrieve === 0 ? [] : await this.#memory.recall(taskText(task), retrieve, { sessionId, minSimilarity: minRelevance });
    this.#inherited = this.#deps.inherited(sessionId);
  }
}

/**
 * Which remembered Tasks a turn's context shows: not those the turn itself sent (delegations,
 * messages; their replies are tool results among its steps), nor Tasks of the session still
 * waiting behind this turn (received, not answered): the model would read them as said before
 * the Task it is answering.
 */
function beforeTheTurn(agentId: string, currentTaskId: string | null, ...tiers: readonly (readonly Task[])[]): (task: Task) => boolean {
  const answered = new Set<string>();
  for (const tier of tiers) for (const task of tier) if (task.from === agentId && task.status !== 'submitted') answered.add(task.id);
  return (task) => {
    if (currentTaskId !== null && task.parentId === currentTaskId) return false;
    const waiting = task.to === agentId && task.from !== agentId && task.status === 'submitted' && task.id !== currentTaskId;
    return !(waiting && !answered.has(task.id));
  };
}

/**
 * The steps of the last turn: from its prompt (the last user message) on. A conversation stored
 * by an older troupe held every exchange of the session after a system prompt; memory has those now.
 */
function fromLastPrompt(stored: readonly ChatMessage[]): ChatMessage[] {
  const start = stored.findLastIndex((message) => message.role === 'user');
  return start < 0 ? [] : stored.slice(start);
}
