import { type ReplayOptions, type ReplayReport, type Runtime, replayRuntime } from '../../src/runtime/index.js';
import type { Task } from '../../src/task/index.js';
import { recordBus } from './runtimeFixture.js';

/** Replays `file`, keeping the Tasks its bus carries from the start; rejects as the replay does. */
export async function replayed(file: string, options: ReplayOptions = {}): Promise<{ tasks: Task[]; report: ReplayReport }> {
  let tasks: Task[] = [];
  const replay = await replayRuntime(file, {
    ...options,
    prepare: async (rt: Runtime) => {
      tasks = recordBus(rt);
      await options.prepare?.(rt);
    },
  });
  const report = await replay.finished;
  return { tasks, report };
}
