import { type Actor, assign, createActor, setup } from 'xstate';
import { Actions, type Clock, type IdGenerator, type Runtime, type Task, createRuntime, createTask, sequentialIds, systemClock } from '../../src/index.js';
import { internalsOf } from '../../src/runtime/internals.js';
import { ScriptedModel } from '../../src/testing.js';
import { sized } from './benchSize.js';
import { type MeasureOptions, type Round, type Timing, compare, settle } from './measure.js';
import { type Row, duration, rate } from './report.js';
import { silentLogger } from './silentLogger.js';

const options = sized({ warmup: 1, rounds: 5 }, { warmup: 0, rounds: 1 });
// Rounds at the large size take ~10× longer; three give a median.
const largeOptions = sized({ warmup: 1, rounds: 3 }, { warmup: 0, rounds: 1 });
/** The runtime's default `maxLanesPerAgent`: the Tasks past the first that start lanes rather than queue. */
const LANES = 16;

/** The baseline: one event that appends the Task to an immutable array in context, as the agent's `enqueue` does. */
const mailboxMachine = setup({
  types: {
    context: {} as { mailbox: readonly Task[] },
    events: {} as { type: 'task.received'; task: Task },
  },
  actions: {
    enqueue: assign({ mailbox: ({ context, event }) => [...context.mailbox, event.task] }),
  },
}).createMachine({
  context: { mailbox: [] },
  on: { 'task.received': { actions: 'enqueue' } },
});

function tasksFor(to: string, count: number, deps: { ids: IdGenerator; clock: Clock }): Task[] {
  return Array.from({ length: count }, (_, i) => createTask({ from: 'bench', to, action: Actions.execute, parameters: { text: `job ${i}` } }, deps));
}

interface Busy {
  readonly agentId: string;
  readonly tasks: readonly Task[];
}

/** How a round hands its Tasks to the busy agent. */
type Delivery = 'bus' | 'actor.send';

/**
 * A fresh agent per round, in `running.turn.thinking` on a model call that never returns. Each
 * Task the round gives it is a session of its own, so the first LANES − 1 start lanes (each on a
 * model call that never returns either) and the rest queue.
 */
async function busyAgent(rt: Runtime, model: ScriptedModel, count: number): Promise<Busy> {
  model.push(...Array.from({ length: LANES }, () => ({ hang: true }) as const));
  const agentId = await rt.spawn({ role: 'worker' });
  await settle();
  const deps = { ids: sequentialIds(), clock: systemClock };
  rt.bus.publish(createTask({ from: 'bench', to: agentId, action: Actions.execute, parameters: { text: 'think forever' }, id: `${agentId}-first` }, deps));
  const state = rt.agent(agentId)?.state;
  if (state !== 'running.turn.thinking') throw new Error(`agent ${agentId} is ${String(state)}, expected running.turn.thinking`);
  return { agentId, tasks: tasksFor(agentId, count, deps) };
}

/** Delivers `count` Tasks per round to a fresh busy agent, via the bus or straight into its actor. */
function agentRound(rt: Runtime, model: ScriptedModel, count: number, delivery: Delivery): Round<Busy> {
  return {
    setup: () => busyAgent(rt, model, count),
    run: ({ agentId, tasks }) => {
      if (delivery === 'bus') {
        for (const task of tasks) rt.bus.publish(task);
      } else {
        const actor = internalsOf(rt).society.agent(agentId)?.actor;
        if (actor === undefined) throw new Error(`agent ${agentId} has no actor`);
        for (const task of tasks) actor.send({ type: 'task.received', task });
      }
    },
    teardown: async ({ agentId }) => {
      // Delivered: each Task the round sent is in a lane's turn or queued; the first Task's lane was there before.
      const agent = rt.agent(agentId);
      const delivered = (agent?.lanes ?? 0) - 1 + (agent?.queued ?? 0);
      if (delivered !== count) {
        throw new Error(
          `agent ${agentId} holds ${delivered} of the round's Tasks (${String(agent?.lanes)} lanes, ${String(agent?.queued)} queued), expected ${count}`,
        );
      }
      if (agent?.lanes !== LANES) throw new Error(`agent ${agentId} runs ${String(agent?.lanes)} lanes, expected ${LANES}`);
      // Aborted: a drain would wait out drainTimeoutMs (30 s) for turns whose model calls never return.
      await rt.terminate(agentId, { by: 'user', mode: 'abort' });
    },
  };
}

/** Sends `count` Tasks per round into a fresh bare mailbox actor. */
function bareRound(count: number): Round<Actor<typeof mailboxMachine>> {
  const tasks = tasksFor('bare', count, { ids: sequentialIds(), clock: systemClock });
  return {
    setup: () => createActor(mailboxMachine).start(),
    run: (actor) => {
      for (const task of tasks) actor.send({ type: 'task.received', task });
    },
    teardown: (actor) => {
      const queued = actor.getSnapshot().context.mailbox.length;
      if (queued !== count) throw new Error(`bare actor queued ${queued} Tasks, expected ${count}`);
      actor.stop();
    },
  };
}

/** Times the agent against the bare actor, rounds alternating, in a runtime of its own. */
async function timeAgainstBare(count: number, delivery: Delivery, rounds: MeasureOptions = options): Promise<[Timing, Timing]> {
  const model = new ScriptedModel([]);
  const rt = await createRuntime({ model, logger: silentLogger, ids: sequentialIds(), maxLanesPerAgent: LANES });
  await rt.createRole({ name: 'worker', prompt: 'You work.' });
  try {
    return await compare(agentRound(rt, model, count, delivery), bareRound(count), rounds);
  } finally {
    await rt.shutdown({ drainTimeoutMs: 0 });
  }
}

/** Tasks delivered to a busy agent (lanes, then its XState mailbox), against a bare actor appending each to its mailbox. */
export async function actorDelivery(): Promise<Row[]> {
  const small = sized(2_000, 50);
  const large = sized(8_000, 100);
  const [viaBus, rawSmall] = await timeAgainstBare(small, 'bus');
  const [direct, rawSmallAgain] = await timeAgainstBare(small, 'actor.send');
  const [viaBusLarge, rawLarge] = await timeAgainstBare(large, 'bus', largeOptions);
  const perTask = (timing: Timing, count: number): number => timing.medianMs / count;
  const rateOf = (timing: Timing, count: number): string => rate((count / timing.medianMs) * 1000, 'Tasks');
  const growth = (big: Timing, little: Timing): string => (perTask(big, large) / perTask(little, small)).toFixed(1);
  return [
    {
      benchmark: `agent mailbox: rt.bus.publish → agent in running.turn.thinking (${small.toLocaleString('en')} Tasks)`,
      troupe: rateOf(viaBus, small),
      raw: rateOf(rawSmall, small),
      ratio: viaBus.medianMs / rawSmall.medianMs,
      notes: `fresh agent per round, its first Task's turn on a model call that never returns; each Task has a session of its own, so the first ${LANES - 1} start lanes (maxLanesPerAgent ${LANES}, each turn on a hanging call too) and the rest queue; every Task checked held (lanes + queued) after the round; raw = bare actor.send whose one assign copies the array too; ratio = time troupe ÷ time raw; N kept small because enqueue copies the mailbox (bounded by mailboxLimit, default 10,000)`,
    },
    {
      benchmark: `agent mailbox: actor.send straight to the agent actor (${small.toLocaleString('en')} Tasks)`,
      troupe: rateOf(direct, small),
      raw: rateOf(rawSmallAgain, small),
      ratio: direct.medianMs / rawSmallAgain.medianMs,
      notes: 'bypasses the bus: the agent machine alone; the gap to the row above is bus + inbox filter',
    },
    {
      benchmark: `agent mailbox: per Task at ${large.toLocaleString('en')} queued`,
      troupe: `${duration(perTask(viaBusLarge, large))}/Task`,
      raw: `${duration(perTask(rawLarge, large))}/Task`,
      ratio: viaBusLarge.medianMs / rawLarge.medianMs,
      notes: `per-Task time ×${growth(viaBusLarge, viaBus)} (troupe), ×${growth(rawLarge, rawSmall)} (raw) from ${small.toLocaleString('en')} to ${large.toLocaleString('en')} queued: here the fixed cost of a send dominates, enqueue copies the mailbox, O(queue length) per Task, which is why mailboxLimit (default 10,000) bounds it`,
    },
  ];
}
