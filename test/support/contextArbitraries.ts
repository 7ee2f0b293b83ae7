import fc from 'fast-check';
import type { ContextBudgetInput, ContextSources, RetrievalHit, SessionSummary } from '../../src/context/index.js';
import { Actions } from '../../src/index.js';
import { type ChatMessage, type Task, taskAsPrompt } from '../../src/task/index.js';
import { SessionTasks } from './sessionTasks.js';

// Sources of a context as memory would hand them over, mixing two sessions, for the property tests
// of `buildContext`. Everything of the other session carries `otherSessionMark` in its text.

export const agentId = 'root';
export const ownSession = 'sA';
const otherSession = 'sB';
export const otherSessionMark = 'SECRET-OF-SB';

const vocabulary = ['rain', 'on', 'the', 'roof', 'Lisbon', 'weather', '42', 'é', '語', '—', 'tool', '{"a":1}', '\n', 'report'];
const wordsArb = fc.nat({ max: 150 });

/** A text of `words` words, tagged so a test can find it, marked when it belongs to the other session. */
function text(tag: string, own: boolean, words: number): string {
  const body = Array.from({ length: words }, (_, i) => vocabulary[(i * 7 + tag.length) % vocabulary.length]).join(' ');
  return `${tag}${own ? '' : ` ${otherSessionMark}`} ${body}`;
}

const kinds = ['user', 'delegation', 'notice', 'progress', 'foreign', 'unanswered'] as const;
const eventArb = fc.record({ own: fc.boolean(), kind: fc.constantFrom(...kinds), words: wordsArb, answerWords: wordsArb });
interface MemoryEvent {
  readonly own: boolean;
  readonly kind: (typeof kinds)[number];
  readonly words: number;
  readonly answerWords: number;
}

/** The Tasks an event leaves in root's memory, oldest first. */
function tasksOf(event: MemoryEvent, index: number, made: SessionTasks): Task[] {
  const sessionId = event.own ? ownSession : otherSession;
  const q = text(`[e${index}q]`, event.own, event.words);
  const a = text(`[e${index}a]`, event.own, event.answerWords);
  switch (event.kind) {
    case 'user':
      return made.exchange('user', agentId, sessionId, q, a);
    case 'delegation':
      return made.exchange(agentId, 'worker-1', sessionId, q, a);
    case 'unanswered':
      return [made.request('user', agentId, sessionId, q)];
    case 'notice':
      return [made.make({ from: 'worker-1', to: agentId, action: Actions.spawned, status: 'completed', sessionId, parameters: { text: q } })];
    case 'progress':
      return [made.make({ from: agentId, to: 'user', action: Actions.execute, status: 'working', sessionId, parameters: { text: q } })];
    case 'foreign':
      return [made.request('user', 'worker-1', sessionId, q)];
  }
}

const summaryArb = fc.record({ own: fc.boolean(), words: fc.nat({ max: 40 }) });
const factArb = fc.record({
  scope: fc.constantFrom('session' as const, 'agent' as const),
  own: fc.boolean(),
  words: fc.nat({ max: 80 }),
  similarity: fc.double({ min: -1, max: 1, noNaN: true }),
});

type StepPiece = { kind: 'text'; words: number } | { kind: 'tools'; calls: number; words: number };
const stepArb: fc.Arbitrary<StepPiece> = fc.oneof(
  fc.record({ kind: fc.constant('text' as const), words: wordsArb }),
  fc.record({ kind: fc.constant('tools' as const), calls: fc.integer({ min: 1, max: 3 }), words: wordsArb }),
);

/** Well-formed steps: assistant text, or an assistant message with tool calls followed by one result per call. */
function stepsOf(pieces: readonly StepPiece[], prefix: string): ChatMessage[] {
  const steps: ChatMessage[] = [];
  pieces.forEach((piece, i) => {
    const content = text(`[${prefix}${i}]`, true, piece.words);
    if (piece.kind === 'text') {
      steps.push({ role: 'assistant', content, toolCalls: [] });
      return;
    }
    const toolCalls = Array.from({ length: piece.calls }, (_, k) => ({
      id: `${prefix}${i}c${k}`,
      name: k === 0 ? 'echo' : 'get_weather',
      arguments: `{"n":${k}}`,
    }));
    steps.push({ role: 'assistant', content: '', toolCalls });
    for (const call of toolCalls) steps.push({ role: 'tool', toolCallId: call.id, name: call.name, content });
  });
  return steps;
}

// Random parts, adding up to at most 1; a third of them leave the recent Tasks no share of their
// own, so that the newest exchange must be kept by being set aside first, not by its share.
const sharesArb = fc.tuple(fc.array(fc.nat({ max: 10 }), { minLength: 5, maxLength: 5 }), fc.nat({ max: 2 })).map(([weights, noRecent]) => {
  if (noRecent === 0) weights[0] = 0;
  const sum = weights.reduce((a, b) => a + b, 0) || 1;
  const [recent = 0, important = 0, summaries = 0, retrieval = 0, inherited = 0] = weights.map((w) => Math.floor((w / sum) * 1000) / 1000);
  return { recent, important, summaries, retrieval, inherited };
});

export interface ContextSample {
  readonly sources: ContextSources;
  readonly budget: ContextBudgetInput;
  /** How many items of the other session were handed over: what the report must count. */
  readonly otherSession: { tasks: number; facts: number; summaries: number };
}

/** Mixed-session sources of every kind, random sizes, a random budget and random shares. */
export const contextSampleArb: fc.Arbitrary<ContextSample> = fc
  .record({
    events: fc.array(eventArb, { maxLength: 40 }),
    split: fc.nat({ max: 100 }),
    current: fc.boolean(),
    summaries: fc.array(summaryArb, { maxLength: 15 }),
    facts: fc.array(factArb, { maxLength: 10 }),
    inherited: fc.oneof(fc.constant(null), wordsArb, fc.array(stepArb, { maxLength: 6 })),
    turn: fc.array(stepArb, { maxLength: 8 }),
    promptWords: wordsArb,
    tokens: fc.integer({ min: 64, max: 4_000 }),
    shares: sharesArb,
  })
  .map((drawn): ContextSample => {
    const made = new SessionTasks();
    const memory = drawn.events.flatMap((event, i) => tasksOf(event, i, made));
    const current = drawn.current ? made.request('user', agentId, ownSession, text('[current]', true, drawn.promptWords)) : null;
    const cut = Math.floor((drawn.split / 100) * memory.length);
    const summaries: SessionSummary[] = drawn.summaries.map((s, i) => ({
      text: text(`[s${i}]`, s.own, s.words),
      sessionId: s.own ? ownSession : otherSession,
    }));
    const retrieval: RetrievalHit[] = drawn.facts.map((f, i) => ({
      fact: {
        text: text(`[f${i}]`, f.scope === 'agent' || f.own, f.words),
        scope: f.scope,
        sessionId: f.scope === 'agent' ? null : f.own ? ownSession : otherSession,
      },
      similarity: f.similarity,
    }));
    const prompt: ChatMessage = { role: 'user', content: current === null ? text('[prompt]', true, drawn.promptWords) : taskAsPrompt(current) };
    const inherited =
      drawn.inherited === null ? null : typeof drawn.inherited === 'number' ? text('[inherited]', true, drawn.inherited) : stepsOf(drawn.inherited, 'i');
    const recent = current === null ? memory.slice(cut) : [...memory.slice(cut), current];
    return {
      sources: {
        agentId,
        sessionId: ownSession,
        currentTaskId: current?.id ?? null,
        rolePrompt: 'You are root. Answer the user.',
        inherited,
        retrieval,
        summaries,
        important: memory.slice(0, cut),
        recent,
        turn: [prompt, ...stepsOf(drawn.turn, 'turn')],
      },
      budget: { tokens: drawn.tokens, shares: drawn.shares },
      otherSession: {
        tasks: memory.filter((task) => task.sessionId === otherSession).length,
        facts: retrieval.filter((hit) => hit.fact.scope === 'session' && hit.fact.sessionId === otherSession).length,
        summaries: summaries.filter((summary) => summary.sessionId === otherSession).length,
      },
    };
  });
