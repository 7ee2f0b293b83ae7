import type { Clock } from '../clock.js';
import { onAbort } from '../abort.js';
import { ErrorCodeSchema, TroupeError, describeError } from '../errors.js';
import type { IdGenerator } from '../ids.js';
import type { ChatDelta, ChatRequest, ModelClient } from '../llm/index.js';
import type { JsonValue, Redactor, Task } from '../task/index.js';
import type { Tool, ToolContext, ToolExecution, ToolResult } from '../tools/index.js';
import { redactedCanonicalJson } from './canonical.js';
import type { RecordedTool, RunRecord } from './recordingFormat.js';
import type { Recording } from './recordingReader.js';
import { ReplayModel, type ReplayedCall } from './replayModel.js';
import { lineDiff, nearestRequest, requestDiff } from './requestDiff.js';
import { type RequestKey, RequestKeys } from './requestKey.js';
import { type RunTape, approvalNote, noteKey } from './runTape.js';
import { resultOf, runsAgainInReplay } from './toolReplayRule.js';
import { TaskLog } from './taskLog.js';
import { ReplayClock } from './replayClock.js';
import { type RecordableEmbedder, embeddingDigest, vectorOf } from './recordedEmbeddings.js';

type ModelRecord = Extract<RunRecord, { k: 'model' }>;
type ToolRecord = Extract<RunRecord, { k: 'tool' }>;
type IdRecord = Extract<RunRecord, { k: 'id' }>;
type NoteRecord = Extract<RunRecord, { k: 'note' }>;
type EmbedRecord = Extract<RunRecord, { k: 'embed' }>;

/** Values taken from the front, in the order they were recorded. */
class Queue<T> {
  readonly items: T[] = [];
  next = 0;
  take(): T | undefined {
    return this.items[this.next++];
  }
}

function queueIn<K, T>(map: Map<K, Queue<T>>, key: K): Queue<T> {
  let queue = map.get(key);
  if (queue === undefined) map.set(key, (queue = new Queue<T>()));
  return queue;
}

/**
 * Hands a recording back to a run, through the same boundaries it was recorded at: the clock's
 * readings, ids, model replies by request key, the results of recorded tool calls, notes; and
 * checks the Task log (`tasks`). The first divergence is kept and ends `finished`.
 */
export class RunReplayer implements RunTape {
  readonly mode = 'replaying';
  readonly tasks: TaskLog;
  readonly tools: readonly RecordedTool[];
  readonly #keys: RequestKeys;
  readonly #redactor: Redactor;
  readonly #clock = new ReplayClock();
  readonly #taskIds = new Queue<IdRecord>();
  readonly #agentIds = new Map<string, Queue<IdRecord>>();
  readonly #models = new Map<string, Queue<ModelRecord>>();
  readonly #asks = new Map<string, Queue<RunRecord>>();
  #toolsRecord: RunRecord | undefined;
  #shutdownRecord: RunRecord | undefined;
  readonly #allModels: ModelRecord[] = [];
  readonly #toolCalls = new Map<string, Queue<ToolRecord>>();
  readonly #allToolCalls: ToolRecord[] = [];
  readonly #notes = new Map<string, Queue<NoteRecord>>();
  readonly #embeddings = new Map<string, Queue<EmbedRecord>>();
  /** A person's decisions on approvals, each with how many Tasks the run had published when it was made: the replay makes it again there. */
  readonly #decisions: { readonly at: number; readonly record: NoteRecord }[] = [];
  #divergence: TroupeError | undefined;
  readonly #divergedListeners: ((error: TroupeError) => void)[] = [];
  #extraIds = 0;

  constructor(
    readonly recording: Recording,
    redactor: Redactor,
  ) {
    this.#keys = new RequestKeys(redactor);
    this.#redactor = redactor;
    const tasks: Task[] = [];
    const taskRecords: RunRecord[] = [];
    let tools: readonly RecordedTool[] = [];
    let shutdownAt: number | undefined;
    let end: number | undefined;
    for (const record of recording.records) {
      if (record.k === 'clock') this.#clock.add(record.at);
      else this.#clock.mark(record);
      switch (record.k) {
        case 'clock':
          break;
        case 'id':
          (record.of === 'task' ? this.#taskIds : queueIn(this.#agentIds, record.role ?? '')).items.push(record);
          break;
        case 'model':
          queueIn(this.#models, record.digest).items.push(record);
          this.#allModels.push(record);
          break;
        case 'tool':
          queueIn(this.#toolCalls, `${record.tool}\u0000${record.args}`).items.push(record);
          this.#allToolCalls.push(record);
          break;
        case 'embed':
          queueIn(this.#embeddings, record.digest).items.push(record);
          break;
        case 'tools':
          tools = record.tools;
          this.#toolsRecord = record;
          break;
        case 'ask':
          queueIn(this.#asks, record.digest).items.push(record);
          break;
        case 'note':
          if (record.kind === approvalNote) this.#decisions.push({ at: tasks.length, record });
          else queueIn(this.#notes, noteKey(record.kind, record.key)).items.push(record);
          break;
        case 'task':
          tasks.push(record.task);
          taskRecords.push(record);
          break;
        case 'shutdown':
          shutdownAt = record.at;
          this.#shutdownRecord = record;
          break;
        case 'end':
          end = record.tasks;
          break;
        case 'limit':
        case 'msg':
          break;
      }
    }
    this.tools = tools;
    this.tasks = new TaskLog(
      tasks,
      redactor,
      { shutdownAt, end },
      {
        reached: (n) => this.#reached(taskRecords[n]),
        diverged: (message) => this.diverged(message),
      },
    );
  }

  /** The first divergence, once there is one. */
  get divergence(): TroupeError | undefined {
    return this.#divergence;
  }

  /** Calls `listener` with the first divergence (at once if there was one). */
  onDiverged(listener: (error: TroupeError) => void): void {
    if (this.#divergence !== undefined) listener(this.#divergence);
    else this.#divergedListeners.push(listener);
  }

  diverged(message: string): TroupeError {
    const error = new TroupeError('replay_diverged', `replay of ${this.recording.file} diverged: ${message}`, { context: { file: this.recording.file } });
    if (this.#divergence === undefined) {
      this.#divergence = error;
      for (const listener of this.#divergedListeners.splice(0)) listener(error);
    }
    return error;
  }

  /** The replay's runtime has started: the readings recorded after it did come next. */
  started(): void {
    this.#reached(this.#toolsRecord);
  }

  /** The replay's runtime began shutting down, where the run's did. */
  shuttingDown(): void {
    this.#reached(this.#shutdownRecord);
  }

  /** A clock whose readings are the run's (see ReplayClock); its timers are `timers`'s. */
  clock(timers: Clock): Clock {
    return this.#clock.clock(timers);
  }

  /** The replay reached `record` (undefined: past the recording): the clock moves there; the record is handed on. */
  #reached<T extends RunRecord>(record: T | undefined): T | undefined {
    if (record !== undefined) this.#clock.sync(record);
    return record;
  }

  /** Ids as the run made them, in order; one more than it made is a divergence. */
  ids(): IdGenerator {
    const extra = (what: string): string => {
      this.diverged(`the replay made more ${what} than the run did`);
      return `replay-extra-${++this.#extraIds}`;
    };
    return {
      task: () => this.#reached(this.#taskIds.take())?.v ?? extra('Task ids'),
      agent: (role) => this.#reached(this.#agentIds.get(role)?.take())?.v ?? extra(`ids of agents of the role "${role}"`),
    };
  }

  /** A replay model for each model the run was given, by the name it was given under ('' for the default). */
  models(): Map<string, ModelClient> {
    const source = {
      key: (request: ChatRequest, model: string) => this.#keys.key(request, model),
      take: (key: RequestKey) => this.#takeCall(key),
      answered: (call: ReplayedCall) => void this.#reached(call.record),
    };
    return new Map(this.recording.header.models.map(({ as, name, scripted }) => [as, new ReplayModel(name, scripted, source)]));
  }

  #takeCall(key: RequestKey): ReplayedCall {
    this.#reached(this.#asks.get(key.digest)?.take());
    const record = this.#models.get(key.digest)?.take();
    if (record !== undefined) return { deltas: record.deltas as unknown as ChatDelta[], error: record.error, record };
    const nearest = nearestRequest(key, this.#allModels);
    const again = this.#models.has(key.digest) ? ' (it asked this more often than the run did)' : '';
    const lines = nearest === undefined ? '' : requestDiff(nearest.request, key);
    const diff =
      nearest === undefined
        ? 'the recording has no model calls'
        : lines === ''
          ? 'the nearest recorded request reads the same but has another digest: the recording was changed after it was written'
          : `diff against the nearest recorded request (- recorded, + replay):\n${lines}`;
    throw this.diverged(`the model ${key.model} was asked something the recording does not have${again}; ${diff}`);
  }

  /** The run's embedder as recorded (when its vectors were), handing back the vectors each call got; a call the run did not make stops the replay. */
  embedder(): RecordableEmbedder | undefined {
    const recorded = this.recording.header.embedder;
    if (recorded === undefined) return undefined;
    const { id, dimension } = recorded;
    return {
      id,
      dimension,
      embed: (texts) => {
        const record = this.#reached(this.#embeddings.get(embeddingDigest(id, texts, this.#redactor))?.take());
        if (record === undefined)
          return Promise.reject(this.diverged(`the replay asked the embedder ${id} for vectors of texts the run did not embed (${texts.length} texts)`));
        if (record.vectors === undefined) {
          const code = ErrorCodeSchema.safeParse(record.error?.code);
          return Promise.reject(new TroupeError(code.success ? code.data : 'model_error', record.error?.message ?? 'failed'));
        }
        const vectors = record.vectors.map((text) => vectorOf(text, dimension));
        if (vectors.some((vector) => vector === undefined)) return Promise.reject(this.diverged(`a recorded vector of ${id} is not ${dimension} numbers`));
        return Promise.resolve(vectors as Float32Array[]);
      },
    };
  }

  /** How a replay runs tools: a pure or society tool runs; any other gives back its recorded result, or stops the replay. */
  readonly execution: ToolExecution = (tool: Tool, args: unknown, context: ToolContext): Promise<ToolResult> => {
    if (runsAgainInReplay(tool)) return tool.execute(args, context);
    const text = redactedCanonicalJson(args, this.#redactor, 'arguments');
    const taken = this.#toolCalls.get(`${tool.name}\u0000${text}`)?.take();
    if (taken?.abandoned !== undefined) return this.#abandoned(taken, context.signal);
    const record = this.#reached(taken);
    if (record === undefined) return Promise.reject(this.#toolDivergence(tool.name, text));
    if (record.result !== undefined) return Promise.resolve(resultOf(record.result));
    const code = ErrorCodeSchema.safeParse(record.error?.code);
    return Promise.reject(new TroupeError(code.success ? code.data : 'tool_error', record.error?.message ?? 'failed'));
  };

  /**
   * A call the run's turn gave up on before the tool answered: it answers nothing here either, so
   * the replay's turn gives up on it the same way (its timeout, its caller's abort), and the replay
   * reaches the record when it does, as the run wrote it then.
   */
  #abandoned(record: ToolRecord, signal: AbortSignal): Promise<ToolResult> {
    return new Promise((_resolve, reject) => {
      onAbort(signal, () => {
        this.#reached(record);
        reject(signal.reason instanceof Error ? signal.reason : new TroupeError('aborted', describeError(signal.reason)));
      });
    });
  }

  #toolDivergence(tool: string, args: string): TroupeError {
    const same = this.#allToolCalls.filter((call) => call.tool === tool);
    if (same.length === 0) {
      const names = [...new Set(this.#allToolCalls.map((call) => call.tool))];
      return this.diverged(`the replay called ${tool}, which the run never called (recorded calls: ${names.join(', ') || 'none'})`);
    }
    const nearest = same.find((call) => call.args === args) ?? same[0];
    const diff = lineDiff([nearest?.args ?? ''], [args]);
    return this.diverged(
      `the replay called ${tool} with arguments the run did not${nearest?.args === args ? ' (as often)' : ''}; diff against its first recorded call:\n${diff}`,
    );
  }

  note(): void {
    // A replay records nothing.
  }

  /** The decisions due once `published` Tasks are out (each handed out once): which approval (`key`) and what was decided. */
  decisionsDue(published: number): { readonly key: string; readonly value: JsonValue }[] {
    const due: { key: string; value: JsonValue }[] = [];
    while (this.#decisions[0] !== undefined && this.#decisions[0].at <= published) {
      const { record } = this.#decisions.shift() as { record: NoteRecord };
      this.#reached(record);
      due.push({ key: record.key, value: record.value });
    }
    return due;
  }

  take(kind: string, key: string): JsonValue | undefined {
    return this.#reached(this.#notes.get(noteKey(kind, key))?.take())?.value;
  }
}
