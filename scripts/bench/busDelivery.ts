import { Subject } from 'rxjs';
import { Actions, EventBus, type Task, createTask, sequentialIds, systemClock } from '../../src/index.js';
import { seededRandom } from '../../src/random.js';
import { sized } from './benchSize.js';
import { type Round, type Timing, compare, opsPerSecond } from './measure.js';
import { type Row, rate } from './report.js';

const PUBLISHES = sized(100_000, 1_000);
const TARGETS = sized(10_000, 100);
const options = sized({ warmup: 1, rounds: 5 }, { warmup: 0, rounds: 1 });

interface Workload {
  readonly ids: readonly string[];
  readonly sequence: readonly Task[];
}

const workloads = new Map<number, Workload>();

/** One frozen, validated Task per target, and a fixed random sequence of them to publish (built once per size). */
function workload(targets: number): Workload {
  let built = workloads.get(targets);
  if (built === undefined) {
    built = buildWorkload(targets, 42);
    workloads.set(targets, built);
  }
  return built;
}

function buildWorkload(targets: number, seed: number): Workload {
  const deps = { ids: sequentialIds(), clock: systemClock };
  const ids = Array.from({ length: targets }, (_, i) => `agent-${i}`);
  const tasks = ids.map((to) => createTask({ from: 'bench', to, action: Actions.message, parameters: { text: 'hi' } }, deps));
  const random = seededRandom(seed);
  const sequence = Array.from({ length: PUBLISHES }, () => tasks[Math.floor(random() * targets)] as Task);
  return { ids, sequence };
}

/** A round that publishes the whole sequence and checks every delivery arrived, with what it holds open. */
interface Bench {
  readonly round: Round<undefined>;
  close(): void | Promise<void>;
}

function counted(label: string, expected: number, publish: (task: Task) => void, sequence: readonly Task[]): { round: Round<undefined>; onTask: () => void } {
  let received = 0;
  return {
    onTask: () => {
      received++;
    },
    round: {
      setup: () => {
        received = 0;
        return undefined;
      },
      run: () => {
        for (const task of sequence) publish(task);
      },
      teardown: () => {
        if (received !== expected) throw new Error(`${label}: ${received} deliveries, expected ${expected}`);
      },
    },
  };
}

/** A bus with one `to` subscriber per target (and optionally a `*` observer). */
function busBench(targets: number, withWildcard: boolean): Bench {
  const { ids, sequence } = workload(targets);
  const bus = new EventBus();
  const { round, onTask } = counted(`bus (${targets} targets)`, withWildcard ? 2 * PUBLISHES : PUBLISHES, (task) => bus.publish(task), sequence);
  for (const id of ids) bus.subscribe({ to: id }, onTask);
  if (withWildcard) bus.subscribe({ pattern: '*' }, onTask);
  return { round, close: () => bus.close() };
}

/** The same Task objects through a bare RxJS Subject with `subscribers` subscribers. */
function subjectBench(subscribers: number): Bench {
  const subject = new Subject<Task>();
  const { round, onTask } = counted('subject', subscribers * PUBLISHES, (task) => subject.next(task), workload(TARGETS).sequence);
  for (let i = 0; i < subscribers; i++) subject.subscribe(onTask);
  return { round, close: () => subject.complete() };
}

/**
 * A hand-made router: a Map from target to a Subject with one subscriber. It touches as much
 * scattered memory per Task as the bus must, so it separates the cost of random access over
 * 10,000 targets from troupe's own overhead.
 */
function routerBench(): Bench {
  const { ids, sequence } = workload(TARGETS);
  const routes = new Map<string, Subject<Task>>();
  const { round, onTask } = counted('router', PUBLISHES, (task) => routes.get(task.to)?.next(task), sequence);
  for (const id of ids) {
    const subject = new Subject<Task>();
    subject.subscribe(onTask);
    routes.set(id, subject);
  }
  return { round, close: () => undefined };
}

async function pair(troupe: Bench, raw: Bench): Promise<[Timing, Timing]> {
  try {
    return await compare(troupe.round, raw.round, options);
  } finally {
    await troupe.close();
    await raw.close();
  }
}

/** Routing a Task to one of many targets, against a Subject that routes nothing. */
export async function busDelivery(): Promise<Row[]> {
  const [many, rawOne] = await pair(busBench(TARGETS, false), subjectBench(1));
  const [few, rawOneAgain] = await pair(busBench(10, false), subjectBench(1));
  const [manyAgain, router] = await pair(busBench(TARGETS, false), routerBench());
  const [wildcard, rawTwo] = await pair(busBench(TARGETS, true), subjectBench(2));
  const tasksPerSecond = (timing: Timing): number => opsPerSecond(PUBLISHES, timing.medianMs);
  const row = (benchmark: string, troupe: Timing, raw: Timing, notes: string): Row => ({
    benchmark,
    troupe: rate(tasksPerSecond(troupe), 'Tasks'),
    raw: rate(tasksPerSecond(raw), 'Tasks'),
    ratio: troupe.medianMs / raw.medianMs,
    notes,
  });
  const targets = TARGETS.toLocaleString('en');
  return [
    row(
      `bus: publish to 1 of ${targets} \`to\` subscribers`,
      many,
      rawOne,
      `${PUBLISHES / 1000}k pre-built frozen Tasks to seeded-random targets; raw = Subject.next to 1 subscriber; ratio = raw Tasks/s ÷ troupe Tasks/s (times slower)`,
    ),
    row(
      'bus: publish to 1 of 10 `to` subscribers',
      few,
      rawOneAgain,
      `same with 10 targets; the gap to the row above is mostly cache misses on ${targets} scattered routes (next row), not a scan`,
    ),
    row(
      `bus: 1 of ${targets} \`to\` subscribers vs a Map→Subject router`,
      manyAgain,
      router,
      `raw = Map<target, Subject>.get(task.to).next(task) over the same ${targets} targets and sequence: troupe overhead at equal memory locality`,
    ),
    row(
      `bus: ${targets} \`to\` subscribers + one on('*') observer`,
      wildcard,
      rawTwo,
      'every Task reaches its target and the wildcard; raw = Subject.next to 2 subscribers; ratio as above',
    ),
  ];
}
