import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { type ContextSources, type RetrievalHit, type SessionSummary, TokenCounter, buildContext } from '../../src/context/index.js';
import { createTask, replyTo, sequentialIds, systemClock } from '../../src/index.js';
import { seededRandom } from '../../src/random.js';
import type { ChatMessage, Task } from '../../src/task/index.js';
import { sized } from './benchSize.js';
import { type Round, type Timing, compare } from './measure.js';
import { type Row, p50Row } from './report.js';
import { contextRetrievalRows } from './contextRetrieval.js';

// Issue 14: the context of one turn built from 10,000 memory entries (goal: p50 ≤ 5 ms), against
// tokenising the messages it yields once with gpt-tokenizer; and the search of memory that turn
// makes, with the graph (contextRetrieval.ts).

const ENTRIES = sized(10_000, 200);
const L1_TASKS = sized(4_000, 80);
const L2_TASKS = sized(4_000, 80);
const FACTS = 10;
const SUMMARIES = ENTRIES - L1_TASKS - L2_TASKS - FACTS;
const SESSION = 'bench-session';
const OTHER = 'other-session';

const words = ['rain', 'on', 'the', 'roof', 'of', 'Lisbon', 'report', 'weather', 'agent', 'task', 'tool', 'result', '42', 'because', 'summary', 'city'];
const deps = { ids: sequentialIds(), clock: systemClock };

function sentence(random: () => number, min: number, max: number): string {
  const count = min + Math.floor(random() * (max - min));
  return Array.from({ length: count }, () => words[Math.floor(random() * words.length)]).join(' ');
}

/** `count` Tasks of root's memory, exchanges with the user, every other one in another session. */
function exchanges(random: () => number, count: number): Task[] {
  const tasks: Task[] = [];
  for (let i = 0; tasks.length < count; i++) {
    const request = createTask(
      { from: 'user', to: 'root', action: 'execute', sessionId: i % 2 === 0 ? SESSION : OTHER, parameters: { text: sentence(random, 5, 60) } },
      deps,
    );
    tasks.push(request, replyTo(request, { status: 'completed', result: sentence(random, 10, 120) }, systemClock));
  }
  return tasks;
}

/** The same memory every round but for the exchange a turn adds, and a turn of a prompt and three tool steps. */
function memory(seed: number): ContextSources {
  const random = seededRandom(seed);
  const summaries: SessionSummary[] = Array.from({ length: SUMMARIES }, (_, i) => ({
    text: sentence(random, 10, 35).slice(0, 200),
    sessionId: i % 2 === 0 ? SESSION : OTHER,
  }));
  const retrieval: RetrievalHit[] = Array.from({ length: FACTS }, (_, i) => ({
    fact: { text: sentence(random, 5, 40), scope: 'agent', sessionId: null },
    similarity: 1 - i / 20,
  }));
  const turn: ChatMessage[] = [{ role: 'user', content: `[from user · task now · execute]\n${sentence(random, 10, 40)}` }];
  for (let step = 0; step < 3; step++) {
    const call = { id: `call-${step}`, name: 'get_weather', arguments: `{"city":"Lisbon","day":${step}}` };
    turn.push({ role: 'assistant', content: '', toolCalls: [call] }, { role: 'tool', toolCallId: call.id, name: call.name, content: sentence(random, 20, 80) });
  }
  return {
    agentId: 'root',
    sessionId: SESSION,
    rolePrompt: `You are root. ${sentence(random, 40, 80)}`,
    retrieval,
    summaries,
    important: exchanges(random, L2_TASKS),
    recent: exchanges(random, L1_TASKS),
    turn,
  };
}

/** The raw side: the text of the messages a build yielded, concatenated and tokenised once. */
function rawRound(last: () => readonly ChatMessage[]): Round<string> {
  return {
    setup: () =>
      last()
        .map((message) => message.content)
        .join('\n'),
    run: (text) => void countTokens(text),
  };
}

/** Steady state: every round a turn's exchange joins L1 (tokenised then), the rest is cached. */
async function warm(): Promise<[Timing, Timing]> {
  const sources = memory(7);
  const random = seededRandom(8);
  let recent = sources.recent ?? [];
  let messages: readonly ChatMessage[] = buildContext(sources).messages;
  const troupe: Round<ContextSources> = {
    setup: () => {
      recent = [...recent.slice(2), ...exchanges(random, 2)];
      return { ...sources, recent };
    },
    run: (state) => {
      messages = buildContext(state).messages;
    },
  };
  return compare(
    troupe,
    rawRound(() => messages),
    sized({ warmup: 20, rounds: 300 }, { warmup: 0, rounds: 2 }),
  );
}

/** After a restart: fresh Tasks and an empty counter, so what is shown is rendered and tokenised during the build. */
async function cold(): Promise<[Timing, Timing]> {
  let messages: readonly ChatMessage[] = [];
  let seed = 100;
  const troupe: Round<{ sources: ContextSources; counter: TokenCounter }> = {
    setup: () => ({ sources: memory(seed++), counter: new TokenCounter() }),
    run: ({ sources, counter }) => {
      messages = buildContext(sources, {}, { counter }).messages;
    },
  };
  // Each round makes 8,000 Tasks in its setup: collect them before the build, not during it.
  return compare(
    troupe,
    rawRound(() => messages),
    sized({ warmup: 2, rounds: 20, gcEachRound: true }, { warmup: 0, rounds: 1, gcEachRound: true }),
  );
}

/** Building one turn's context from 10,000 memory entries, against tokenising its messages once. */
export async function contextBuild(): Promise<Row[]> {
  const [warmBuild, warmRaw] = await warm();
  const [coldBuild, coldRaw] = await cold();
  const workload = `${L1_TASKS.toLocaleString('en')} L1 + ${L2_TASKS.toLocaleString('en')} L2 Tasks, ${SUMMARIES.toLocaleString('en')} L3 summaries, ${FACTS} facts, half of them of another session; default 16,000-token budget and shares`;
  return [
    p50Row(
      `context: build one turn from ${ENTRIES.toLocaleString('en')} memory entries`,
      warmBuild,
      warmRaw,
      `${workload}; each round a new exchange joins L1 (rendered and tokenised in the build); raw = the built messages' text joined and counted once with gpt-tokenizer; goal p50 ≤ 5 ms; ratio of p50s`,
    ),
    p50Row(
      'context: the same build cold (fresh Tasks, empty token cache)',
      coldBuild,
      coldRaw,
      'the first turn after a restart: only what fits the budget is rendered and tokenised (the walk stops at the first Task that does not fit); raw as above',
    ),
    ...(await contextRetrievalRows()),
  ];
}
