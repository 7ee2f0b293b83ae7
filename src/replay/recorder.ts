import type { Subscription } from 'rxjs';
import { onAbort } from '../abort.js';
import type { EventBus } from '../bus/index.js';
import type { Clock } from '../clock.js';
import { TroupeError, describeError, errorCodeOf } from '../errors.js';
import type { IdGenerator } from '../ids.js';
import type { ModelClient } from '../llm/index.js';
import type { JsonValue, Redactor, Task } from '../task/index.js';
import type { Tool, ToolContext, ToolExecution, ToolRegistry, ToolResult, WhenAbandoned } from '../tools/index.js';
import { redactedCanonicalJson } from './canonical.js';
import { type RecordingHeader, type RunRecord, recordingFormatVersion } from './recordingFormat.js';
import { RecordingModel } from './recordingModel.js';
import { RecordingWriter } from './recordingWriter.js';
import { RequestKeys } from './requestKey.js';
import type { RunTape } from './runTape.js';
import type { RunTap } from './runTap.js';
import { recordedResult, runsAgainInReplay } from './toolReplayRule.js';
import { type RecordableEmbedder, embeddingDigest, vectorText } from './recordedEmbeddings.js';

/** Clock readings held before they are written as one line. */
const readingsPerLine = 256;

/** Where a run is recorded and how much it may take. */
interface RecordSettings {
  readonly file: string;
  readonly maxBytes: number;
}

/**
 * Records everything non-deterministic a run consumes, each through the boundary it comes in by:
 * the clock's readings (`clock`), ids (`ids`), model replies (`model`), results of tools a replay
 * does not run again (`execution`), and notes (`note`); and the bus's Tasks (`watch`), the Task
 * log a replay must reproduce. Everything is redacted by the runtime's redactor before it is written.
 */
export class RunRecorder implements RunTape, RunTap {
  readonly mode = 'recording';
  readonly tape: RunTape = this;
  readonly #writer: RecordingWriter;
  readonly #redactor: Redactor;
  readonly #keys: RequestKeys;
  readonly #maxBytes: number;
  #readings: number[] = [];
  #tasks = 0;
  #watching: Subscription | undefined;
  /** Each model request message written so far (canonical JSON) and its number: bounded as the recording is. */
  readonly #messageRefs = new Map<string, number>();
  /** The latest request's messages and their numbers, by place. */
  #lastRefs: { readonly messages: readonly string[]; readonly refs: readonly number[] } = { messages: [], refs: [] };

  constructor(
    settings: RecordSettings,
    run: { models: RecordingHeader['models']; settings: Record<string, JsonValue>; redactor: Redactor; embedder?: RecordableEmbedder | undefined },
  ) {
    this.#redactor = run.redactor;
    this.#keys = new RequestKeys(run.redactor);
    this.#maxBytes = settings.maxBytes;
    const header: RecordingHeader = {
      k: 'header',
      format: 'troupe-recording',
      version: recordingFormatVersion,
      models: run.models,
      settings: run.redactor.value(run.settings) as Record<string, JsonValue>,
      ...(run.embedder === undefined || run.embedder.deterministic === true ? {} : { embedder: { id: run.embedder.id, dimension: run.embedder.dimension } }),
    };
    this.#writer = new RecordingWriter(settings.file, header, settings.maxBytes);
  }

  /** Bytes the recording holds so far. */
  get bytes(): number {
    return this.#writer.bytes;
  }

  #record(record: RunRecord): void {
    this.#flushReadings();
    this.#writer.record(record);
  }

  #line(text: string): void {
    this.#flushReadings();
    this.#writer.line(text);
  }

  #flushReadings(): void {
    if (this.#readings.length === 0) return;
    const at = this.#readings;
    this.#readings = [];
    this.#writer.record({ k: 'clock', at });
  }

  #messageRef(message: string): number {
    let ref = this.#messageRefs.get(message);
    if (ref === undefined) {
      ref = this.#messageRefs.size;
      this.#messageRefs.set(message, ref);
      this.#line(`{"k":"msg","i":${ref},"m":${message}}`);
    }
    return ref;
  }

  /** The numbers of a request's messages: those it sends again where the request before sent them keep theirs, the others are looked up. */
  #messageRefsOf(messages: readonly string[]): number[] {
    const last = this.#lastRefs;
    const refs = messages.map((message, i) => (last.messages[i] === message ? (last.refs[i] as number) : this.#messageRef(message)));
    this.#lastRefs = { messages, refs };
    return refs;
  }

  /** Refuses work that could not be recorded: the recording is full. */
  #requireRoom(): void {
    if (this.#writer.full) {
      const why = this.#writer.failure ?? `reached its limit of ${this.#maxBytes} bytes (record.maxBytes)`;
      throw new TroupeError('recording_limit', `the recording ${why}: the run makes no more model or tool calls it could not record`);
    }
  }

  /** `clock`, its every reading recorded. */
  clock(clock: Clock): Clock {
    return {
      now: () => {
        const now = clock.now();
        this.#readings.push(now);
        if (this.#readings.length >= readingsPerLine) this.#flushReadings();
        return now;
      },
      setTimeout: (callback, ms) => clock.setTimeout(callback, ms),
      clearTimeout: (handle) => clock.clearTimeout(handle),
    };
  }

  /** `ids`, every id it makes recorded. */
  ids(ids: IdGenerator): IdGenerator {
    return {
      task: () => {
        const v = ids.task();
        this.#record({ k: 'id', of: 'task', v });
        return v;
      },
      agent: (role) => {
        const v = ids.agent(role);
        this.#record({ k: 'id', of: 'agent', role, v });
        return v;
      },
    };
  }

  /** `model`, its every call recorded. */
  model(model: ModelClient): ModelClient {
    const sink = {
      keys: this.#keys,
      redactor: this.#redactor,
      requireRoom: () => this.#requireRoom(),
      line: (text: string) => this.#line(text),
      messageRefs: (messages: readonly string[]) => this.#messageRefsOf(messages),
    };
    return new RecordingModel(model, sink);
  }

  /** `embedder`, each of its calls recorded unless its vectors are the same every time (`deterministic`). */
  embedder(embedder: RecordableEmbedder): RecordableEmbedder {
    if (embedder.deterministic === true) return embedder;
    const redactor = this.#redactor;
    return {
      id: embedder.id,
      dimension: embedder.dimension,
      embed: async (texts, options) => {
        this.#requireRoom();
        const digest = embeddingDigest(embedder.id, texts, redactor);
        try {
          const vectors = await embedder.embed(texts, options);
          this.#record({ k: 'embed', digest, vectors: vectors.map(vectorText) });
          return vectors;
        } catch (error) {
          this.#record({ k: 'embed', digest, error: { code: errorCodeOf(error), message: redactor.text(describeError(error)) } });
          throw error;
        }
      },
    };
  }

  /** How a recorded run runs its tools: those a replay runs again as they are, the others with their results recorded. */
  readonly execution: ToolExecution = (tool: Tool, args: unknown, context: ToolContext, whenAbandoned?: WhenAbandoned): Promise<ToolResult> => {
    if (runsAgainInReplay(tool)) return tool.execute(args, context);
    this.#requireRoom();
    const redactor = this.#redactor;
    const recorded = { k: 'tool', tool: tool.name, args: redactedCanonicalJson(args, redactor, 'arguments') } as const;
    const failure = (error: unknown): { code: string; message: string } => ({ code: errorCodeOf(error), message: redactor.text(describeError(error)) });
    // The call's end as the turn saw it: the first of the tool's answer and the turn giving up on it.
    let ended = false;
    const watch: WhenAbandoned = whenAbandoned ?? ((listener) => onAbort(context.signal, () => listener(context.signal.reason)));
    const stopWatching = watch((reason) => {
      if (ended) return;
      ended = true;
      this.#record({ ...recorded, abandoned: failure(reason) });
    });
    const end = (record: () => RunRecord): void => {
      stopWatching();
      if (ended) return;
      ended = true;
      this.#record(record());
    };
    return tool.execute(args, context).then(
      (result) => {
        end(() => ({ ...recorded, result: recordedResult(result, redactor) }));
        return result;
      },
      (error: unknown) => {
        end(() => ({ ...recorded, error: failure(error) }));
        throw error;
      },
    );
  };

  /** Records the registry's tools (what a replay stands in for those it is not given), then every Task `bus` carries. */
  started(bus: EventBus, tools: ToolRegistry): void {
    const recorded = tools.definitions().map((definition) => {
      const annotations = tools.get(definition.name)?.annotations;
      return { ...definition, parameters: { ...definition.parameters }, ...(annotations === undefined ? {} : { annotations: { ...annotations } }) };
    });
    this.#record({ k: 'tools', tools: recorded });
    this.#watching = bus.subscribe({ pattern: '*' }, (task) => this.#recordTask(task), 'recording');
  }

  /** A Task of the log, its JSON written as it is when there is nothing in it to redact. */
  #recordTask(task: Task): void {
    const n = this.#tasks++;
    const json = JSON.stringify(task);
    if (this.#redactor.leaves(json)) this.#line(`{"k":"task","n":${n},"task":${json}}`);
    else this.#record({ k: 'task', n, task: this.#redactor.task(task) });
  }

  /** The program began shutting the runtime down. */
  shuttingDown(): void {
    this.#record({ k: 'shutdown', at: this.#tasks });
  }

  note(kind: string, key: string, value: JsonValue): void {
    this.#record({ k: 'note', kind, key, value: this.#redactor.value(value) });
  }

  take(): undefined {
    return undefined;
  }

  diverged(): void {
    // Nothing to stop while recording.
  }

  /** Ends the recording: the last readings, the `end` line, the file closed. */
  closed(): void {
    this.#watching?.unsubscribe();
    this.#record({ k: 'end', tasks: this.#tasks });
    this.#writer.close();
  }
}
