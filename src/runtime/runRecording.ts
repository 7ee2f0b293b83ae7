import { systemClock } from '../clock.js';
import { randomIds } from '../ids.js';
import { type ModelClient, OfflineModel } from '../llm/index.js';
import { type RecordOption, RecordOptionSchema, type RecordingHeader, RunRecorder, defaultRecordingMaxBytes } from '../replay/index.js';
import { type JsonValue, parseOrThrow } from '../task/index.js';
import { parseMcpServers } from '../tools/index.js';
import { runtimeRedactor } from './runtimeOpening.js';
import type { RuntimeOptions } from './runtimeOptions.js';

/** Options a recording does not keep: where the run was, how it logged, the recording itself. */
const notKept: ReadonlySet<string> = new Set(['record', 'dataDir', 'logLevel', 'secrets']);

/** The options that are plain values (limits, names) and the root's settings: what a replay starts from. */
function plainSettings(options: RuntimeOptions): Record<string, JsonValue> {
  const kept: Record<string, JsonValue> = {};
  for (const [name, value] of Object.entries(options)) {
    if (notKept.has(name)) continue;
    if (typeof value === 'number' || typeof value === 'string' || typeof value === 'boolean') kept[name] = value;
  }
  if (options.root !== undefined) kept['root'] = JSON.parse(JSON.stringify(options.root)) as JsonValue;
  return kept;
}

/** The models of the run by the names they were given under ('' for the default). */
function modelsOf(model: ModelClient, models: RuntimeOptions['models']): RecordingHeader['models'] {
  const entry = (as: string, client: ModelClient): RecordingHeader['models'][number] => ({ as, name: client.name, scripted: client.scripted });
  return [entry('', model), ...Object.entries(models ?? {}).map(([as, client]) => entry(as, client))];
}

/**
 * Starts recording the run `options` make (`createRuntime({ record })`): its recorder, and the
 * options with the clock and ids the recorder watches. The file is created now; a bad `record`
 * option is refused (`invalid_input`) naming it.
 */
export function startRecording(options: RuntimeOptions & { record: RecordOption }): { options: RuntimeOptions; recorder: RunRecorder } {
  const record = parseOrThrow(RecordOptionSchema, options.record, 'record');
  const file = typeof record === 'string' ? record : record.file;
  const maxBytes = typeof record === 'string' ? defaultRecordingMaxBytes : (record.maxBytes ?? defaultRecordingMaxBytes);
  const model = options.model ?? new OfflineModel();
  const redactor = runtimeRedactor(options.secrets, parseMcpServers(options.mcpServers ?? {}));
  const embedder = options.memory?.embedder ?? undefined;
  const recorder = new RunRecorder({ file, maxBytes }, { models: modelsOf(model, options.models), settings: plainSettings(options), redactor, embedder });
  const clock = recorder.clock(options.clock ?? systemClock);
  const recorded: RuntimeOptions = { ...options, model, clock, ids: recorder.ids(options.ids ?? randomIds) };
  return { options: embedder === undefined ? recorded : { ...recorded, memory: { ...options.memory, embedder: recorder.embedder(embedder) } }, recorder };
}
