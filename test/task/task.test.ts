import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Clock, TimerHandle } from '../../src/clock.js';
import { TroupeError, ValidationError } from '../../src/errors.js';
import { sequentialIds } from '../../src/ids.js';
import {
  type JsonValue,
  type ReplyInit,
  type Task,
  type TaskInit,
  type TaskMetadata,
  TaskSchema,
  TaskStatusSchema,
  createTask,
  deepFreeze,
  isParsedTask,
  noticeTask,
  observationTask,
  TaskRefSchema,
  parseTask,
  refTo,
  replyTo,
} from '../../src/task/index.js';
import { ToolResultSchema } from '../../src/tools/index.js';

/** A clock that reads whatever the test set; these tests never schedule anything. */
function fixedClock(at: number): Clock & { at: number } {
  return {
    at,
    now() {
      return this.at;
    },
    setTimeout: () => 0 as unknown as TimerHandle,
    clearTimeout: () => undefined,
  };
}

function isDeepFrozen(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return true;
  return Object.isFrozen(value) && Object.values(value).every(isDeepFrozen);
}

/** Runs `fn` and returns the ValidationError it must throw. */
function thrownBy(fn: () => unknown): ValidationError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return error as ValidationError;
  }
  throw new Error('expected a ValidationError, but nothing was thrown');
}

function rejection(input: unknown): ValidationError {
  return thrownBy(() => parseTask(input));
}

function makeTask(init: Partial<TaskInit> = {}, at = 1_000): Task {
  return createTask(
    {
      from: 'user',
      to: 'poet-1',
      action: 'execute',
      parameters: { text: 'write a haiku', nested: { lines: [5, 7, 5], tags: { form: 'haiku' } } },
      metadata: { importance: 0.7, source: { kind: 'cli' } },
      ...init,
    },
    { ids: sequentialIds(), clock: fixedClock(at) },
  );
}

/** A valid Task as plain, unfrozen JSON data. */
function plain(task: Task = makeTask()): Record<string, unknown> {
  return JSON.parse(JSON.stringify(task)) as Record<string, unknown>;
}

describe('createTask', () => {
  it('returns a valid Task with defaults filled in', () => {
    const task = makeTask({}, 42);
    expect(TaskSchema.safeParse(task).success).toBe(true);
    expect(task).toMatchObject({
      id: 't1',
      sessionId: 't1',
      parentId: null,
      status: 'submitted',
      result: null,
      error: null,
      createdAt: 42,
    });
  });

  it('returns a deeply frozen Task', () => {
    const task = makeTask();
    expect(isDeepFrozen(task)).toBe(true);
    expect(Object.isFrozen(task.parameters['nested'])).toBe(true);
    expect(() => {
      task.parameters['text'] = 'changed';
    }).toThrow(TypeError);
    expect(task.parameters['text']).toBe('write a haiku');
  });

  it("copies the caller's parameters and metadata instead of freezing them", () => {
    const parameters: Record<string, JsonValue> = { list: [1, 2], inner: { a: 'b' } };
    const metadata: TaskMetadata = { importance: 0.2, extra: { k: true } };
    makeTask({ parameters, metadata });
    expect(isDeepFrozen(parameters)).toBe(false);
    expect(Object.isFrozen(parameters['inner'])).toBe(false);
    expect(Object.isFrozen(metadata['extra'])).toBe(false);
    parameters['list'] = [3];
    expect(parameters).toEqual({ list: [3], inner: { a: 'b' } });
  });

  it('rejects invalid input with a ValidationError naming the field', () => {
    expect(thrownBy(() => makeTask({ to: 'poet 1' })).field).toBe('task.to');
    expect(thrownBy(() => makeTask({ action: 'Bad Action' })).field).toBe('task.action');
    expect(thrownBy(() => makeTask({ metadata: { importance: 2 } })).field).toBe('task.metadata.importance');
  });
});

describe('parseTask', () => {
  it('accepts a valid plain object and returns a frozen copy, leaving the input alone', () => {
    const input = plain();
    const snapshot = structuredClone(input);
    const task = parseTask(input);
    expect(task).toEqual(input);
    expect(task).not.toBe(input);
    expect(isDeepFrozen(task)).toBe(true);
    expect(Object.isFrozen(input)).toBe(false);
    expect(Object.isFrozen(input['parameters'])).toBe(false);
    expect(input).toEqual(snapshot);
  });

  it.each([
    ['task.metadata.importance', { metadata: { importance: 2 } }],
    ['task.metadata.importance', { metadata: { importance: -0.1 } }],
    ['task.to', { to: 'poet 1' }],
    ['task.from', { from: '' }],
    ['task.action', { action: 'Bad Action' }],
    ['task.action', { action: 'node.' }],
    ['task.status', { status: 'done' }],
    ['task.createdAt', { createdAt: 1.5 }],
    ['task.parentId', { parentId: 'has/slash' }],
    ['task.error.code', { error: { code: '', message: 'x' } }],
    // A code outside the catalogue (a newer troupe's, a typo) is refused, not passed on.
    ['task.error.code', { status: 'failed', error: { code: 'model_broke', message: 'x' } }],
    ['task.parameters', { parameters: [1, 2] }],
  ])('names %s as the offending field', (field, patch) => {
    const error = rejection({ ...plain(), ...patch });
    expect(error.field).toBe(field);
    expect(error.code).toBe('invalid_input');
    expect(error).toBeInstanceOf(TroupeError);
    expect(error.message.startsWith(`${field}: `)).toBe(true);
  });

  it('names a missing field', () => {
    const { status: _status, ...rest } = plain();
    expect(rejection(rest).field).toBe('task.status');
  });

  it('names the whole Task when the input is not an object', () => {
    expect(rejection('not a task').field).toBe('task');
    expect(rejection(null).field).toBe('task');
  });

  it('rejects unknown extra keys', () => {
    const error = rejection({ ...plain(), priority: 'high' });
    expect(error.field.startsWith('task')).toBe(true);
    expect(error.message).toContain('priority');
  });

  it('rejects unknown extra keys inside the error object', () => {
    const error = rejection({ ...plain(), status: 'failed', error: { code: 'model_error', message: 'boom', stack: 'at …' } });
    expect(error.field.startsWith('task.error')).toBe(true);
    expect(error.message).toContain('stack');
  });

  it('keeps extra JSON keys in metadata', () => {
    const task = parseTask({ ...plain(), metadata: { importance: 1, origin: { via: 'http' } } });
    expect(task.metadata).toEqual({ importance: 1, origin: { via: 'http' } });
  });
});

describe('isParsedTask', () => {
  it('is true only for Tasks that parseTask, createTask or replyTo made', () => {
    const made = makeTask();
    expect(isParsedTask(made)).toBe(true);
    expect(isParsedTask(replyTo(made, { status: 'completed' }, fixedClock(0)))).toBe(true);
    expect(isParsedTask(parseTask(plain()))).toBe(true);
    // Frozen is not the same as validated: a forged or shallowly frozen object is not trusted.
    expect(isParsedTask(plain())).toBe(false);
    expect(isParsedTask(Object.freeze(plain()))).toBe(false);
    expect(isParsedTask(deepFreeze(plain()))).toBe(false);
    expect(isParsedTask(null)).toBe(false);
  });
});

describe('observationTask', () => {
  const about = makeTask();
  const deps = { ids: sequentialIds(), clock: fixedClock(5_000) };

  it('makes a frozen, schema-valid working Task to observer under the Task it is about, trusted by the bus', () => {
    const task = observationTask({ from: 'poet-1', about, action: 'node.tool_call', parameters: { tool: 'echo', arguments: '{"n":1}' } }, deps);
    expect(TaskSchema.parse(task)).toEqual(task);
    expect(task).toMatchObject({ from: 'poet-1', to: 'observer', status: 'working', parentId: about.id, sessionId: about.sessionId, createdAt: 5_000 });
    expect(isDeepFrozen(task)).toBe(true);
    expect(isParsedTask(task)).toBe(true);
  });

  it("copies the parameters, so a later change to the caller's object does not reach the Task", () => {
    const parameters: Record<string, string | number> = { text: 'a' };
    const task = observationTask({ from: 'poet-1', about, action: 'node.thinking', parameters }, deps);
    parameters['text'] = 'b';
    expect(task.parameters).toEqual({ text: 'a' });
  });

  it("carries JSON a schema checked (a tool result's metadata) as a valid Task, frozen to its depths", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (raw) => {
        const metadata = ToolResultSchema.parse({ content: '', metadata: raw }).metadata ?? {};
        const task = observationTask({ from: 'poet-1', about, action: 'node.tool_result', parameters: { tool: 'echo', callId: 'c1', metadata } }, deps);
        expect(TaskSchema.parse(task)).toEqual(task);
        expect(isDeepFrozen(task)).toBe(true);
      }),
    );
  });

  it('refuses a number JSON cannot carry, naming the parameter', () => {
    const error = thrownBy(() => observationTask({ from: 'poet-1', about, action: 'node.thinking', parameters: { restart: Number.NaN } }, deps));
    expect(error.field).toBe('task.parameters.restart');
  });
});

describe('noticeTask', () => {
  it('makes the notice createTask would make, frozen and trusted by the bus, without the parse', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.oneof(fc.string(), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }))),
        fc.boolean(),
        (parameters, aboutTask) => {
          const about = aboutTask ? makeTask({ sessionId: 's1' }) : null;
          const init = { from: 'poet-1', to: 'user', action: 'agent.warning', parameters };
          const notice = noticeTask({ ...init, about }, { ids: sequentialIds(), clock: fixedClock(7) });
          const made = createTask(
            { ...init, status: 'completed', parentId: about?.id ?? null, ...(about === null ? {} : { sessionId: about.sessionId }) },
            { ids: sequentialIds(), clock: fixedClock(7) },
          );
          expect(notice).toEqual(made);
          expect(isDeepFrozen(notice)).toBe(true);
          expect(isParsedTask(notice)).toBe(true);
        },
      ),
    );
  });
});

describe('replyTo', () => {
  it('keeps the id, swaps from and to, and leaves the original untouched', () => {
    const original = makeTask({ sessionId: 's1', parentId: 'p1' }, 10);
    const snapshot = structuredClone(original);
    const reply = replyTo(original, { status: 'completed', result: { text: 'rain on the roof' } }, fixedClock(20));

    expect(reply).not.toBe(original);
    expect(reply).toEqual({
      ...snapshot,
      from: 'poet-1',
      to: 'user',
      status: 'completed',
      result: { text: 'rain on the roof' },
      createdAt: 20,
    });
    expect(original).toEqual(snapshot);
    expect(isDeepFrozen(original)).toBe(true);
    expect(isDeepFrozen(reply)).toBe(true);
  });

  it('carries an error and merges metadata without touching the original', () => {
    const original = makeTask();
    const reply = replyTo(original, { status: 'failed', error: { code: 'model_error', message: 'no model' }, metadata: { importance: 0.9 } }, fixedClock(5));
    expect(reply.status).toBe('failed');
    expect(reply.result).toBeNull();
    expect(reply.error).toEqual({ code: 'model_error', message: 'no model' });
    expect(reply.metadata).toEqual({ importance: 0.9, source: { kind: 'cli' } });
    expect(original.metadata).toEqual({ importance: 0.7, source: { kind: 'cli' } });
  });

  it('validates the reply', () => {
    expect(() => replyTo(makeTask(), { status: 'completed', metadata: { importance: 3 } }, fixedClock(0))).toThrow(ValidationError);
  });

  // A parsed Task's own fields are trusted; everything the reply brings is still checked.
  it('names the bad field of what a reply to a parsed Task changes', () => {
    const task = makeTask();
    const fieldOf = (reply: unknown, at = 0): string => thrownBy(() => replyTo(task, reply as ReplyInit, fixedClock(at))).field;
    expect(fieldOf({ status: 'done' })).toBe('task.status');
    expect(fieldOf({ status: 'completed', result: { text: 'x', when: new Date(0) } })).toBe('task.result');
    expect(fieldOf({ status: 'failed', error: { code: '', message: 'm' } })).toBe('task.error.code');
    expect(fieldOf({ status: 'failed', error: { code: 'not_a_code', message: 'm' } })).toBe('task.error.code');
    expect(fieldOf({ status: 'failed', error: { code: 'model_error', message: 'm', extra: 1 } })).toBe('task.error');
    expect(fieldOf({ status: 'completed', metadata: { importance: -0.1 } })).toBe('task.metadata.importance');
    expect(fieldOf({ status: 'completed' }, 1.5)).toBe('task.createdAt');
  });

  it('still validates the whole of a Task that was not parsed', () => {
    const forged = { ...plain(), id: 'not an id' } as unknown as Task;
    expect(thrownBy(() => replyTo(forged, { status: 'completed' }, fixedClock(0))).field).toBe('task.id');
  });

  it('copies what the reply carries, so a later change by the caller cannot reach it', () => {
    const result = { text: 'first', list: [1, 2] };
    const reply = replyTo(makeTask(), { status: 'completed', result }, fixedClock(0));
    result.list.push(3);
    expect(reply.result).toEqual({ text: 'first', list: [1, 2] });
    expect(isDeepFrozen(reply)).toBe(true);
    expect(isParsedTask(reply)).toBe(true);
  });
});

// Arbitrary valid inputs for createTask. fast-check prints the seed and path of any failure.
const agentIdArb = fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/);
const taskIdArb = fc.stringMatching(/^[A-Za-z0-9_-]{1,128}$/);
const actionArb = fc.array(fc.stringMatching(/^[a-z][a-z0-9_]{0,8}$/), { minLength: 1, maxLength: 4 }).map((words) => words.join('.'));

/** JSON has no -0, so a Task carrying one cannot come back equal; every other JSON value can. */
function withoutNegativeZero(value: JsonValue): JsonValue {
  if (typeof value === 'number') return Object.is(value, -0) ? 0 : value;
  if (Array.isArray(value)) return value.map(withoutNegativeZero);
  // Made with fromEntries: a key `__proto__` (fast-check makes them) stays an own key, as JSON.parse keeps it, rather than setting the prototype.
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, withoutNegativeZero(inner)]));
  return value;
}
const jsonArb = fc.jsonValue({ maxDepth: 3 }).map((value) => withoutNegativeZero(value as JsonValue));
const parametersArb = fc.dictionary(fc.string(), jsonArb, { maxKeys: 5 });
const metadataArb = fc
  .tuple(
    fc.dictionary(
      fc.string().filter((key) => key !== 'importance'),
      jsonArb,
      { maxKeys: 3 },
    ),
    fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined }),
  )
  .map(([extra, importance]): TaskMetadata => (importance === undefined ? extra : { ...extra, importance: Object.is(importance, -0) ? 0 : importance }));

const initArb = fc.record(
  {
    from: agentIdArb,
    to: agentIdArb,
    action: actionArb,
    status: fc.constantFrom(...TaskStatusSchema.options),
    parameters: parametersArb,
    metadata: metadataArb,
    sessionId: taskIdArb,
    parentId: fc.option(taskIdArb, { nil: null }),
    id: taskIdArb,
  },
  { requiredKeys: ['from', 'to', 'action'] },
);

describe('refTo', () => {
  it('keeps only the id and session of a whole Task, which the strict TaskRefSchema then accepts', () => {
    const task = makeTask({ parameters: { text: 'x'.repeat(10_000) }, sessionId: 'chat-7' });
    const ref = refTo(task);
    expect(ref).toEqual({ id: task.id, sessionId: task.sessionId });
    expect(TaskRefSchema.parse(ref)).toEqual(ref);
    // The whole Task is refused where a reference is expected: it carries far more than the two fields.
    expect(() => TaskRefSchema.parse(task)).toThrow();
  });

  it('is null for no Task', () => {
    expect(refTo(null)).toBeNull();
    expect(refTo(undefined)).toBeNull();
  });
});

describe('Task laws', () => {
  it('a Task from createTask round-trips through JSON and parseTask to an equal value', () => {
    fc.assert(
      fc.property(initArb, fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), (init, at) => {
        const task = createTask(init, { ids: sequentialIds(), clock: fixedClock(at) });
        const back = parseTask(JSON.parse(JSON.stringify(task)));
        expect(back).toEqual(task);
        expect(isDeepFrozen(back)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
