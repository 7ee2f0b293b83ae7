import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Runtime, type RuntimeOptions, createRuntime } from '../../src/runtime/index.js';
import { ScriptedModel } from '../../src/testing.js';

/** What `cleanupAfterEach` returns: runs a cleanup after the test. */
type Later = (cleanup: () => Promise<void>) => void;

/** A data dir left with unanswered Tasks: its agents (role `w`, oldest first) and the Tasks each had waiting, in the order sent. */
export interface WaitingTasksDataDir {
  readonly dir: string;
  readonly agents: readonly string[];
  readonly tasks: ReadonlyMap<string, readonly string[]>;
  /** The one session each agent's Tasks are in: a Task sent in it waits behind them. */
  readonly sessions: ReadonlyMap<string, string>;
  /** Every waiting Task, as the shutdown that left them counted them. */
  readonly pendingTasks: number;
}

/**
 * Builds, in a new temp dir (the caller removes it), an organisation whose `agents` agents each
 * hold `tasksEach` unanswered Tasks of one session (`job 0`, `job 1` …), the first of each mid-turn on a model
 * call that never returns; a shutdown with a drain of 0 leaves them all in the store.
 */
export async function waitingTasksDataDir(agents: number, tasksEach: number): Promise<WaitingTasksDataDir> {
  const dir = await mkdtemp(join(tmpdir(), 'troupe-waiting-'));
  // Every agent's first Task reaches the model at once, so each is mid-turn when the runtime stops.
  const model = new ScriptedModel(hangs(agents + 1));
  const rt = await createRuntime({ dataDir: dir, model, maxLiveAgents: agents + 1, maxConcurrentModelCalls: agents + 1 });
  await rt.createRole({ name: 'w', prompt: 'work' });
  const tasks = new Map<string, string[]>();
  const sessions = new Map<string, string>();
  for (let i = 0; i < agents; i++) {
    const id = await rt.spawn({ role: 'w' });
    // One session each, so its Tasks wait behind its first one's turn rather than taking lanes of their own.
    const sessionId = `jobs-${i}`;
    sessions.set(id, sessionId);
    tasks.set(id, await Promise.all(Array.from({ length: tasksEach }, (_, n) => rt.send(id, `job ${n}`, { sessionId }))));
  }
  const { pendingTasks } = await rt.shutdown({ drainTimeoutMs: 0 });
  return { dir, agents: [...tasks.keys()], tasks, sessions, pendingTasks };
}

/** `waitingTasksDataDir`, removed after the test. */
export async function waitingTasksDataDirForTest(later: Later, agents: number, tasksEach: number): Promise<WaitingTasksDataDir> {
  const built = await waitingTasksDataDir(agents, tasksEach);
  later(() => rm(built.dir, { recursive: true, force: true }));
  return built;
}

/**
 * A runtime restarted on `dir` whose background restore starts one agent a slice (so a test sees
 * it in progress: a turn of the event loop between agents), shut down after the test.
 */
export async function restartSliceByAgent(later: Later, dir: string, options: RuntimeOptions): Promise<Runtime> {
  const rt = await createRuntime({ dataDir: dir, restoreSliceTasks: 1, maxLiveAgents: 1_000, ...options });
  later(async () => {
    await rt.shutdown({ drainTimeoutMs: 0 });
  });
  return rt;
}

/**
 * Holds a background restore before each slice until the test lets it go on: `step` lets one
 * more slice run, `release` all the rest. A test so sees the restore in progress for as long as
 * it needs, however long its requests take, instead of counting on the restore being slower.
 */
export class RestoreGate {
  #allowed = 0;
  #released = false;
  #wake: (() => void) | undefined;
  #held: (() => void) | undefined;

  /** What the restore awaits before each slice. */
  readonly betweenSlices = async (): Promise<void> => {
    this.#held?.();
    while (!this.#released && this.#allowed === 0) await new Promise<void>((resolve) => (this.#wake = resolve));
    if (!this.#released) this.#allowed--;
  };

  /** Lets one more slice run; resolves once it has and the restore waits at the gate again (so: while agents are left after it). */
  step(): Promise<void> {
    const heldAgain = new Promise<void>((resolve) => (this.#held = resolve));
    this.#allowed++;
    this.#wake?.();
    return heldAgain;
  }

  release(): void {
    this.#released = true;
    this.#wake?.();
  }
}

/**
 * A runtime restarted on `dir` whose background restore starts one agent a slice and waits for
 * `gate` before each, shut down after the test (the gate released first, so nothing is left held).
 */
export async function restartHeld(later: Later, dir: string, options: RuntimeOptions, gate: RestoreGate): Promise<Runtime> {
  const rt = await Runtime.create({ dataDir: dir, restoreSliceTasks: 1, maxLiveAgents: 1_000, ...options }, { betweenRestoreSlices: gate.betweenSlices });
  later(async () => {
    gate.release();
    await rt.shutdown({ drainTimeoutMs: 0 });
  });
  return rt;
}

/** `n` model calls that never return (until aborted). */
export function hangs(n: number): { hang: true }[] {
  return Array.from({ length: n }, () => ({ hang: true as const }));
}
