import { type Actor, createActor, fromPromise, setup, toPromise } from 'xstate';
import { type Runtime, createRuntime, sequentialIds } from '../../src/index.js';
import { ScriptedModel } from '../../src/testing.js';
import { sized } from './benchSize.js';
import { collect, elapsedMs, gcSource, median, settle } from './measure.js';
import { type Row, bytes, duration } from './report.js';
import { silentLogger } from './silentLogger.js';

const AGENTS = sized(10_000, 50);
// The warm-up round spawns fewer agents: it only has to get the code compiled.
const options = sized({ warmup: 1, rounds: 3, warmupAgents: 1_000 }, { warmup: 0, rounds: 1, warmupAgents: 0 });

/** The baseline: the agent's four lifecycle states and its two promise steps, nothing else. */
const lifecycleMachine = setup({
  types: {
    events: {} as { type: 'agent.terminate' },
  },
  actors: {
    prepare: fromPromise(async () => undefined),
    release: fromPromise(async () => undefined),
  },
}).createMachine({
  initial: 'spawning',
  states: {
    spawning: { invoke: { src: 'prepare', onDone: 'running' }, on: { 'agent.terminate': 'draining' } },
    running: { on: { 'agent.terminate': 'draining' } },
    draining: { invoke: { src: 'release', onDone: 'terminated', onError: 'terminated' } },
    terminated: { type: 'final' },
  },
});

/** The bare lifecycle without promise steps: what a plain XState actor costs. */
const plainLifecycleMachine = setup({
  types: {
    events: {} as { type: 'agent.ready' } | { type: 'agent.terminate' },
  },
}).createMachine({
  initial: 'spawning',
  states: {
    spawning: { on: { 'agent.ready': 'running', 'agent.terminate': 'draining' } },
    running: { on: { 'agent.terminate': 'draining' } },
    draining: { always: 'terminated' },
    terminated: { type: 'final' },
  },
});

/** One side of the comparison: a fresh world per round, filled with agents, then stopped. */
interface Side<W> {
  create: () => Promise<W> | W;
  /** Spawns `count` agents and waits until every one is running. */
  populate: (world: W, count: number) => Promise<void>;
  /** Throws unless the world holds `count` running agents (untimed). */
  verify: (world: W, count: number) => void;
  stop: (world: W) => Promise<void>;
}

/** Medians over the timed rounds. */
interface Outcome {
  readonly spawnMs: number;
  readonly heapPerAgent: number;
  readonly stopMs: number;
}

/**
 * Times `populate`, takes the heap it left (after gc), then times `stop`. The world is dropped
 * before the next round reads its heap baseline, so it is not subtracted from that round.
 */
async function sideRound<W>(side: Side<W>, count: number): Promise<Outcome> {
  let world: W | undefined = await side.create();
  collect();
  const heapBefore = process.memoryUsage().heapUsed;
  let start = process.hrtime.bigint();
  await side.populate(world, count);
  const spawnMs = elapsedMs(start);
  side.verify(world, count);
  collect();
  const heapPerAgent = (process.memoryUsage().heapUsed - heapBefore) / count;
  start = process.hrtime.bigint();
  await side.stop(world);
  const stopMs = elapsedMs(start);
  world = undefined;
  return { spawnMs, heapPerAgent, stopMs };
}

/** Rounds of the sides alternate, so a change in machine load hits all alike; medians of each. */
async function measureSides<A, B, C>(a: Side<A>, b: Side<B>, c: Side<C>): Promise<[Outcome, Outcome, Outcome]> {
  const outcomes: [Outcome[], Outcome[], Outcome[]] = [[], [], []];
  for (let round = 0; round < options.warmup + options.rounds; round++) {
    const count = round < options.warmup ? options.warmupAgents : AGENTS;
    const ofA = await sideRound(a, count);
    const ofB = await sideRound(b, count);
    const ofC = await sideRound(c, count);
    if (round < options.warmup) continue;
    outcomes[0].push(ofA);
    outcomes[1].push(ofB);
    outcomes[2].push(ofC);
  }
  return [medians(outcomes[0]), medians(outcomes[1]), medians(outcomes[2])];
}

function medians(outcomes: readonly Outcome[]): Outcome {
  if (process.env['BENCH_VERBOSE'] === '1') {
    const list = (pick: (outcome: Outcome) => number): string => outcomes.map((outcome) => pick(outcome).toFixed(0)).join(', ');
    process.stderr.write(`  spawn (ms): ${list((o) => o.spawnMs)}; heap/agent (B): ${list((o) => o.heapPerAgent)}; stop (ms): ${list((o) => o.stopMs)}\n`);
  }
  return {
    spawnMs: median(outcomes.map((outcome) => outcome.spawnMs)),
    heapPerAgent: median(outcomes.map((outcome) => outcome.heapPerAgent)),
    stopMs: median(outcomes.map((outcome) => outcome.stopMs)),
  };
}

/** Agents each runtime was given to spawn, to check its shutdown stopped them all. */
const spawned = new WeakMap<Runtime, number>();

const troupeSide: Side<Runtime> = {
  create: async () => {
    // Past the default maxLiveAgents (1,000): the bench measures the cost of many live agents.
    const rt = await createRuntime({ model: new ScriptedModel([]), logger: silentLogger, ids: sequentialIds(), maxLiveAgents: AGENTS + 1 });
    await rt.createRole({ name: 'worker', prompt: 'You work.' });
    return rt;
  },
  populate: async (rt, count) => {
    for (let i = 0; i < count; i++) await rt.spawn({ role: 'worker' });
    spawned.set(rt, count);
    await settle();
  },
  verify: (rt, count) => {
    // + 1: the root agent every runtime starts with.
    const running = rt.agents().filter((agent) => agent.state === 'running.idle').length - 1;
    if (running !== count) throw new Error(`${running} agents running, expected ${count}`);
  },
  stop: async (rt) => {
    const summary = await rt.shutdown({ drainTimeoutMs: 0 });
    // + 1: the root agent.
    const expected = (spawned.get(rt) ?? 0) + 1;
    if (summary.terminatedAgents !== expected) throw new Error(`shutdown stopped ${summary.terminatedAgents} of ${expected} agents`);
  },
};

const bareSide: Side<Actor<typeof lifecycleMachine>[]> = {
  create: () => [],
  populate: async (actors, count) => {
    for (let i = 0; i < count; i++) actors.push(createActor(lifecycleMachine, { id: `worker-${i}` }).start());
    await settle();
  },
  verify: (actors, count) => {
    const running = actors.filter((actor) => actor.getSnapshot().value === 'running').length;
    if (running !== count) throw new Error(`${running} bare actors running, expected ${count}`);
  },
  stop: async (actors) => {
    for (const actor of actors) actor.send({ type: 'agent.terminate' });
    await Promise.all(actors.map((actor) => toPromise(actor)));
  },
};

const plainSide: Side<Actor<typeof plainLifecycleMachine>[]> = {
  create: () => [],
  populate: async (actors, count) => {
    for (let i = 0; i < count; i++) {
      const actor = createActor(plainLifecycleMachine, { id: `worker-${i}` }).start();
      actor.send({ type: 'agent.ready' });
      actors.push(actor);
    }
    await settle();
  },
  verify: (actors, count) => {
    const running = actors.filter((actor) => actor.getSnapshot().value === 'running').length;
    if (running !== count) throw new Error(`${running} plain actors running, expected ${count}`);
  },
  stop: async (actors) => {
    for (const actor of actors) actor.send({ type: 'agent.terminate' });
    await Promise.all(actors.map((actor) => toPromise(actor)));
  },
};

/** Spawning (and shutting down) AGENTS agents against as many bare actors of the same lifecycle. */
export async function spawnSuite(): Promise<Row[]> {
  const [troupe, raw, plain] = await measureSides(troupeSide, bareSide, plainSide);
  const gcNote = gcSource === 'unavailable' ? ' (no forced gc: figures include garbage)' : '';
  const perAgent = (ms: number): string => `${duration(ms / AGENTS)}/agent`;
  return [
    {
      benchmark: `spawn ${AGENTS.toLocaleString('en')} agents (rt.spawn, top-level)`,
      troupe: `${duration(troupe.spawnMs)} (${perAgent(troupe.spawnMs)})`,
      raw: `${duration(raw.spawnMs)} (${perAgent(raw.spawnMs)})`,
      ratio: troupe.spawnMs / raw.spawnMs,
      notes: `until all are running.idle; raw = createActor().start() of a 4-state machine (spawning/running/draining/terminated) with the agent's promise steps (prepare, release); without them a bare actor takes ${perAgent(plain.spawnMs)}; ratio = time troupe ÷ time raw`,
    },
    {
      benchmark: `heap per agent (${AGENTS.toLocaleString('en')} live)`,
      troupe: bytes(troupe.heapPerAgent),
      raw: bytes(raw.heapPerAgent),
      ratio: troupe.heapPerAgent / raw.heapPerAgent,
      notes: `heapUsed delta after gc ÷ agents${gcNote}; troupe includes record, cell, conversation, bus subscription; bare actor without promise steps: ${bytes(plain.heapPerAgent)}; ratio = bytes troupe ÷ bytes raw`,
    },
    {
      benchmark: `shut down ${AGENTS.toLocaleString('en')} idle agents`,
      troupe: `${duration(troupe.stopMs)} (${perAgent(troupe.stopMs)})`,
      raw: `${duration(raw.stopMs)} (${perAgent(raw.stopMs)})`,
      ratio: troupe.stopMs / raw.stopMs,
      notes: 'rt.shutdown({ drainTimeoutMs: 0 }) vs send agent.terminate to each bare actor and await its final state; ratio = time troupe ÷ time raw',
    },
  ];
}
