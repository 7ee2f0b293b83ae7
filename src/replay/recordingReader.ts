import { readFileSync, statSync } from 'node:fs';
import { TroupeError, describeError } from '../errors.js';
import { type JsonValue, formatPath } from '../task/index.js';
import { type RecordingHeader, RecordingHeaderSchema, RecordSchema, type RunRecord, readableRecordingVersions } from './recordingFormat.js';

/** A recording read back and checked: its header and its records in order. */
export interface Recording {
  readonly file: string;
  readonly header: RecordingHeader;
  readonly records: readonly RunRecord[];
}

const refuse = (file: string, message: string): TroupeError => new TroupeError('invalid_input', `recording ${file}: ${message}`, { context: { file } });

/** One line as JSON, or a refusal naming the line (a last line cut short says the run stopped while writing it). */
function parseLine(file: string, text: string, number: number, last: boolean): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const cut = last ? ' (the last line is cut short: the run stopped while writing it, so the recording is incomplete)' : '';
    throw refuse(file, `line ${number} is not JSON${cut}: ${describeError(error)}`);
  }
}

/**
 * Reads a recording, refusing clearly: a file larger than `maxBytes`, a first line that is not a
 * troupe recording's header, another format version, a line that is not JSON or not a record
 * (named by its number), and a recording that stopped at its size limit (it cannot be replayed whole).
 */
export function readRecording(file: string, options: { maxBytes: number }): Recording {
  let size: number;
  try {
    size = statSync(file).size;
  } catch (error) {
    throw refuse(file, `cannot read it: ${describeError(error)}`);
  }
  if (size > options.maxBytes) throw refuse(file, `${size} bytes is larger than the ${options.maxBytes} a replay reads (record.maxBytes)`);
  const lines = readFileSync(file, 'utf8').split('\n');
  if (lines.at(-1) === '') lines.pop();
  const first = lines[0];
  if (first === undefined) throw refuse(file, 'it is empty');
  const head = parseLine(file, first, 1, lines.length === 1) as { format?: unknown; version?: unknown } | null;
  if (head?.format !== 'troupe-recording') throw refuse(file, 'line 1 is not the header of a troupe recording');
  if (typeof head.version !== 'number' || !readableRecordingVersions.includes(head.version)) {
    throw refuse(file, `it is in recording format version ${String(head.version)}; this troupe reads versions ${readableRecordingVersions.join(' and ')} only`);
  }
  const header = RecordingHeaderSchema.safeParse(head);
  if (!header.success) throw refuse(file, `line 1: ${issueOf(header.error.issues)}`);
  const records: RunRecord[] = [];
  const messages: JsonValue[] = [];
  for (let i = 1; i < lines.length; i++) {
    const parsed = RecordSchema.safeParse(parseLine(file, lines[i] ?? '', i + 1, i === lines.length - 1));
    if (!parsed.success) throw refuse(file, `line ${i + 1} is not a record: ${issueOf(parsed.error.issues)}`);
    const record = parsed.data;
    if (record.k === 'limit')
      throw refuse(file, `line ${i + 1}: the run stopped recording at its limit of ${record.maxBytes} bytes (record.maxBytes), so it cannot be replayed`);
    if (record.k === 'msg') {
      if (record.i !== messages.length) throw refuse(file, `line ${i + 1}: message ${record.i} comes where message ${messages.length} should`);
      messages.push(record.m);
    } else if (record.k === 'model')
      records.push({ ...record, request: { ...record.request, messages: resolved(file, i + 1, record.request.messages, messages) } });
    else records.push(record);
  }
  return { file, header: header.data, records };
}

/** A stored request's messages with each reference (a number) replaced by the message it names. */
function resolved(file: string, line: number, stored: readonly JsonValue[], messages: readonly JsonValue[]): JsonValue[] {
  return stored.map((message, index) => {
    if (typeof message !== 'number') return message;
    const found = messages[message];
    if (found === undefined) throw refuse(file, `line ${line}: request.messages.${index} refers to message ${message}, which no earlier line holds`);
    return found;
  });
}

function issueOf(issues: readonly { path: readonly PropertyKey[]; message: string }[]): string {
  const issue = issues[0];
  if (issue === undefined) return 'invalid';
  const field = formatPath(issue.path);
  return field === '' ? issue.message : `${field}: ${issue.message}`;
}
