import type { Clock } from '../clock.js';
import type { IdGenerator } from '../ids.js';
import { deepFreeze, deepFreezeAll } from './freeze.js';
import { type AgentId, type JsonValue, type Task, type TaskError, type TaskMetadata, type TaskRef, TaskSchema, type TaskStatus } from './schema.js';
import { parseOrThrow } from './validate.js';
import { ValidationError } from '../errors.js';

/** What a caller says when making a Task; the rest has defaults. */
export interface TaskInit {
  from: AgentId;
  to: AgentId;
  action: string;
  parameters?: Record<string, JsonValue>;
  status?: TaskStatus;
  sessionId?: string;
  parentId?: string | null;
  metadata?: TaskMetadata;
  id?: string;
}

export interface TaskFactoryDeps {
  readonly ids: IdGenerator;
  readonly clock: Clock;
}

// Tasks this module validated and deep-froze. Being frozen proves neither (a caller can
// Object.freeze any object, shallowly), so the bus trusts only membership here.
const parsedTasks = new WeakSet<object>();

/** Validates an untrusted value as a Task and returns a frozen copy. */
export function parseTask(input: unknown): Task {
  const task = deepFreeze(parseOrThrow(TaskSchema, input, 'task'));
  parsedTasks.add(task);
  return task;
}

/** True for a Task made by `parseTask`, `createTask` or `replyTo`: already valid and deeply frozen. */
export function isParsedTask(value: unknown): value is Task {
  return typeof value === 'object' && value !== null && parsedTasks.has(value);
}

/** Makes a new, validated, frozen Task. */
export function createTask(init: TaskInit, deps: TaskFactoryDeps): Task {
  const id = init.id ?? deps.ids.task();
  return parseTask({
    id,
    sessionId: init.sessionId ?? id,
    parentId: init.parentId ?? null,
    from: init.from,
    to: init.to,
    action: init.action,
    status: init.status ?? 'submitted',
    parameters: init.parameters ?? {},
    result: null,
    error: null,
    metadata: init.metadata ?? {},
    createdAt: deps.clock.now(),
  });
}

/** What an observation says: who is working on which Task, and the fragment seen (text, a tool call). */
export interface ObservationInit {
  readonly from: AgentId;
  readonly about: Task;
  readonly action: string;
  /**
   * Strings and numbers; or JSON a schema has already checked (a tool result's metadata, parsed by
   * ToolResultSchema) or the runtime made (artifact references). Frozen, not copied.
   */
  readonly parameters: Readonly<Record<string, JsonValue>>;
}

/**
 * A `working` Task to `observer` about `about` (thinking text, a tool call, a tool's result), made
 * many times a turn. Every field comes from values already validated (the Task, the agent's id, a
 * fixed action, JSON a schema checked) or is a string or finite number by type, so it skips the
 * schema parse that is most of `createTask`'s cost; a non-finite number is still refused.
 */
export function observationTask(init: ObservationInit, deps: TaskFactoryDeps): Task {
  const { from, about, action, parameters } = init;
  return trustedTask({ from, to: 'observer', action, status: 'working', parentId: about.id, sessionId: about.sessionId }, parameters, deps);
}

/** What a notice says: from an agent to its supervisor, about a Task (or none), in strings and numbers. */
export interface NoticeInit {
  readonly from: AgentId;
  readonly to: AgentId;
  readonly action: string;
  readonly parameters: Readonly<Record<string, string | number>>;
  readonly about: TaskRef | null;
}

/**
 * A `completed` notice from an agent to its supervisor (spawned, warning, error, terminated),
 * about `about` or in a session of its own. Made, like an observation, from values already
 * validated, so it skips the schema parse.
 */
export function noticeTask(init: NoticeInit, deps: TaskFactoryDeps): Task {
  const { from, to, action, parameters, about } = init;
  return trustedTask({ from, to, action, status: 'completed', parentId: about?.id ?? null, sessionId: about?.sessionId ?? null }, parameters, deps);
}

/** A Task of fields already validated, and parameters whose numbers are checked finite; a session of its own when `sessionId` is null. */
function trustedTask(
  fields: Pick<Task, 'from' | 'to' | 'action' | 'status' | 'parentId'> & { readonly sessionId: string | null },
  given: Readonly<Record<string, JsonValue>>,
  deps: TaskFactoryDeps,
): Task {
  const parameters: Record<string, JsonValue> = {};
  for (const [key, value] of Object.entries(given)) {
    if (typeof value === 'number' && !Number.isFinite(value)) throw new ValidationError(`task.parameters.${key}`, 'must be a finite number');
    parameters[key] = deepFreezeAll(value);
  }
  const id = deps.ids.task();
  const task: Task = Object.freeze({
    id,
    sessionId: fields.sessionId ?? id,
    parentId: fields.parentId,
    from: fields.from,
    to: fields.to,
    action: fields.action,
    status: fields.status,
    parameters: Object.freeze(parameters),
    result: null,
    error: null,
    metadata: Object.freeze({}),
    createdAt: deps.clock.now(),
  });
  parsedTasks.add(task);
  return task;
}

export interface ReplyInit {
  status: TaskStatus;
  result?: JsonValue;
  /** Why it failed; a code outside `errorCodes` throws a ValidationError naming `task.error.code`. */
  error?: TaskError | null;
  metadata?: TaskMetadata;
}

// What a reply changes; the rest of a reply is the original Task, already valid when it is a parsed one.
const ReplyChangesSchema = TaskSchema.pick({ status: true, result: true, error: true, metadata: true, createdAt: true });

/**
 * The receiver's answer to a Task: the same Task id with a new status, travelling back
 * from the receiver to the sender. The original Task is untouched. When it was parsed (it came
 * off the bus, or createTask made it), only what the reply changes is validated: a whole-Task
 * parse is most of the cost of every reply.
 */
export function replyTo(task: Task, reply: ReplyInit, clock: Clock): Task {
  const changes = {
    status: reply.status,
    result: reply.result ?? null,
    error: reply.error ?? null,
    metadata: reply.metadata === undefined ? task.metadata : { ...task.metadata, ...reply.metadata },
    createdAt: clock.now(),
  };
  if (!parsedTasks.has(task)) return parseTask({ ...task, from: task.to, to: task.from, ...changes });
  const checked = parseOrThrow(ReplyChangesSchema, changes, 'task');
  const made = deepFreeze({ ...task, from: task.to, to: task.from, ...checked });
  parsedTasks.add(made);
  return made;
}

/** The text a Task carries for a model or a human: `parameters.text`, else its JSON. */
export function taskText(task: Task): string {
  const source = task.result ?? task.parameters;
  if (typeof source === 'string') return source;
  // `result ?? parameters` is never null: a null result falls back to the parameters record.
  if (typeof source === 'object' && !Array.isArray(source)) {
    const text = (source as Record<string, JsonValue>)['text'];
    if (typeof text === 'string') return text;
  }
  return JSON.stringify(source);
}
