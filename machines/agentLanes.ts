import type { Task } from '../src/task/schema.js';

/** After a restart: a Task whose turn was interrupted and the step it had reached, so that turn picks up where it stopped. */
export interface ResumeAt {
  readonly taskId: string;
  readonly step: number;
}

/**
 * Where a lane's turn is: a model call (`thinking`), the tools it asked for (`acting`), or paused
 * until a person decides on a tool call that needs approval (`awaiting`).
 */
export type LanePhase = 'thinking' | 'acting' | 'awaiting';

/** A lane: the turn one session has in progress. A session has at most one, so its Tasks run in order. */
export interface Lane {
  readonly sessionId: string;
  /** The Task the lane's turn works on. */
  readonly task: Task;
  readonly phase: LanePhase;
}

/** What a new lane's turn starts from: step 0, or the step an interrupted turn on the same Task had reached. */
export interface LaneStart {
  readonly task: Task;
  readonly step: number;
  readonly resuming: boolean;
}

/** What lanes are decided from: the machine's context, in part. */
interface LaneState {
  readonly mailbox: readonly Task[];
  readonly lanes: readonly Lane[];
  readonly maxLanes: number;
  readonly resume: readonly ResumeAt[];
}

/** The id of a lane's turn actor: it names the session, so the inspector shows one actor per lane. */
export function laneId(sessionId: string): string {
  return `turn:${sessionId}`;
}

/** The lane of `sessionId`, if it has one. */
export function laneOf(lanes: readonly Lane[], sessionId: string): Lane | undefined {
  return lanes.find((lane) => lane.sessionId === sessionId);
}

/** Whether `task` may start a lane now: its session has none, and fewer than `maxLanes` run. */
export function laneFree(state: LaneState, task: Task): boolean {
  return state.lanes.length < state.maxLanes && laneOf(state.lanes, task.sessionId) === undefined;
}

/**
 * The queued Tasks that start lanes now, in mailbox order: the oldest Task of each session that
 * has no lane, while fewer than `maxLanes` run. The mailbox keeps the rest in arrival order, so a
 * session's Tasks still start oldest first, and other sessions' Tasks overtake a busy session.
 * Null when none starts (the common case: nothing queued, or every lane taken).
 */
export function queuedStarts(state: LaneState): { readonly starts: readonly Task[]; readonly mailbox: readonly Task[] } | null {
  const room = state.maxLanes - state.lanes.length;
  if (room <= 0 || state.mailbox.length === 0) return null;
  const taken = new Set(state.lanes.map((lane) => lane.sessionId));
  const starts: Task[] = [];
  const mailbox: Task[] = [];
  for (const [index, task] of state.mailbox.entries()) {
    if (starts.length === room) {
      mailbox.push(...state.mailbox.slice(index));
      break;
    }
    if (taken.has(task.sessionId)) mailbox.push(task);
    else {
      taken.add(task.sessionId);
      starts.push(task);
    }
  }
  return starts.length === 0 ? null : { starts, mailbox };
}

/** How each of `tasks` starts (resumed where a restart interrupted it), and the resume points left. */
export function laneStarts(resume: readonly ResumeAt[], tasks: readonly Task[]): { readonly starts: LaneStart[]; readonly resume: readonly ResumeAt[] } {
  if (resume.length === 0) return { starts: tasks.map((task) => ({ task, step: 0, resuming: false })), resume };
  const starts = tasks.map((task) => {
    const at = resume.find((point) => point.taskId === task.id);
    return { task, step: at?.step ?? 0, resuming: at !== undefined };
  });
  const started = new Set(tasks.map((task) => task.id));
  return { starts, resume: resume.filter((point) => !started.has(point.taskId)) };
}

/** The lanes with `sessionId`'s phase set. */
export function withPhase(lanes: readonly Lane[], sessionId: string, phase: LanePhase): Lane[] {
  return lanes.map((lane) => (lane.sessionId === sessionId ? { ...lane, phase } : lane));
}
