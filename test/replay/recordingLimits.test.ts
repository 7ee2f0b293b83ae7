import { spawn } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { canonicalJson, digestOf } from '../../src/replay/canonical.js';
import { defaultRecordingMaxBytes, readRecording } from '../../src/replay/index.js';
import { ScriptedModel } from '../../src/testing.js';
import { createRuntime, replayRuntime } from '../../src/runtime/index.js';
import { defineTool } from '../../src/tools/index.js';
import { rejectedCode } from '../support/runtimeFixture.js';
import { tempDirsAfterEach } from '../support/cleanupAfterEach.js';
import { processArgs } from '../support/cliProcess.js';
import { runUntilKilled } from '../support/killedWriter.js';

const tempDir = tempDirsAfterEach('troupe-recording-');

const secret = 'hunter2-correct-horse-battery';

/** A tool that reads a credentials file (it declares nothing, so its results are recorded). */
const readConfig = defineTool({
  name: 'read_config',
  description: 'Reads the service configuration.',
  parameters: z.object({}),
  execute: () => Promise.resolve({ content: `host=db.internal password=${secret}`, metadata: { token: secret } }),
});

/** Records one turn that calls read_config, then answers. */
async function recordConfigRun(file: string, maxBytes?: number): Promise<{ status: string; code: string | undefined }> {
  const model = new ScriptedModel([{ toolCalls: [{ name: 'read_config', arguments: {} }] }, { text: 'configured' }]);
  const rt = await createRuntime({ model, tools: [readConfig], secrets: [secret], record: maxBytes === undefined ? file : { file, maxBytes } });
  const answer = await rt.waitForAnswer(await rt.submit('read the configuration'), { timeoutMs: 10_000 });
  await rt.shutdown();
  return { status: answer.status, code: answer.error?.code };
}

/** The message of a refused replay of `file`. */
async function refusal(file: string): Promise<string> {
  return replayRuntime(file).then(
    () => 'not refused',
    (error: unknown) => String(error),
  );
}

/** `lines` of a recording as format version 1 wrote them: every request's messages in full, no `msg` lines. */
function asVersion1(lines: readonly string[]): string[] {
  const messages: unknown[] = [];
  const out: string[] = [];
  for (const line of lines) {
    const record = JSON.parse(line) as { k: string; m?: unknown; version?: number; request?: { messages: unknown[] } };
    if (record.k === 'msg') messages.push(record.m);
    else if (record.k === 'header') out.push(JSON.stringify({ ...record, version: 1 }));
    else if (record.request !== undefined) {
      out.push(JSON.stringify({ ...record, request: { ...record.request, messages: record.request.messages.map((ref) => messages[ref as number]) } }));
    } else out.push(line);
  }
  return out;
}

describe('a recording', () => {
  it('writes each message of the model requests once, and still reads a version-1 recording that wrote them in full', async () => {
    const dir = await tempDir();
    const file = join(dir, 'run.jsonl');
    await recordConfigRun(file);
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    const requests = lines.filter((line) => line.startsWith('{"k":"model"')).map((line) => (JSON.parse(line) as { request: { messages: unknown[] } }).request);
    // The turn's second request sends its first request's messages again: by number, not again in full.
    expect(requests).toHaveLength(2);
    expect(requests[1]?.messages.slice(0, requests[0]?.messages.length)).toEqual(requests[0]?.messages);
    expect(requests.flatMap((request) => request.messages).every((message) => typeof message === 'number')).toBe(true);
    const written = lines.filter((line) => line.startsWith('{"k":"msg"'));
    expect(written).toHaveLength(new Set(requests.flatMap((request) => request.messages)).size);
    // Each request as read back, its messages by their numbers, has the digest it was recorded under.
    for (const record of readRecording(file, { maxBytes: defaultRecordingMaxBytes }).records) {
      if (record.k !== 'model') continue;
      const { model, tools, messages } = record.request;
      expect(digestOf(`${JSON.stringify(model)}\n${tools.digest}\n${messages.map(canonicalJson).join('\n')}`)).toBe(record.digest);
    }

    const old = join(dir, 'version1.jsonl');
    writeFileSync(old, asVersion1(lines).join('\n'));
    const replay = await replayRuntime(old, { secrets: [secret] });
    expect((await replay.finished).answers).toHaveLength(1);
  });

  it('stores a secret in a tool result redacted, and still replays', async () => {
    const file = join(await tempDir(), 'secret.jsonl');
    expect(await recordConfigRun(file)).toEqual({ status: 'completed', code: undefined });
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain(secret);
    expect(text).toContain('password=[REDACTED]');
    const replay = await replayRuntime(file, { secrets: [secret] });
    expect((await replay.finished).answers).toHaveLength(1);
  });

  it('is bounded: past record.maxBytes the run is refused model calls and the file ends with the limit', async () => {
    const dir = await tempDir();
    const file = join(dir, 'small.jsonl');
    const maxBytes = 4_000;
    expect(await recordConfigRun(file, maxBytes)).toEqual({ status: 'failed', code: 'recording_limit' });
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    expect(JSON.parse(lines.at(-1) ?? '{}')).toEqual({ k: 'limit', maxBytes });
    expect(statSync(file).size).toBeLessThan(maxBytes + 100);
    expect(await refusal(file)).toContain('stopped recording at its limit of 4000 bytes');
    expect(await replayRuntime(file, { maxBytes: 100 }).catch(String)).toContain('larger than the 100');
    expect(await rejectedCode(createRuntime({ record: { file, maxBytes: 0 } }))).toBe('invalid_input');
  });

  it('that is truncated, corrupt or of another version is refused, naming the line', async () => {
    const dir = await tempDir();
    const file = join(dir, 'whole.jsonl');
    await recordConfigRun(file);
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');

    const cut = join(dir, 'cut.jsonl');
    writeFileSync(cut, `${lines.slice(0, 6).join('\n')}\n${(lines[6] ?? '').slice(0, 20)}`);
    expect(await refusal(cut)).toMatch(/line 7 is not JSON \(the last line is cut short/);

    const garbled = join(dir, 'garbled.jsonl');
    writeFileSync(garbled, [...lines.slice(0, 3), '{"k":"model","digest":1}', ...lines.slice(3)].join('\n'));
    expect(await refusal(garbled)).toMatch(/line 4 is not a record/);

    const future = join(dir, 'future.jsonl');
    writeFileSync(future, [(lines[0] ?? '').replace('"version":2', '"version":3'), ...lines.slice(1)].join('\n'));
    expect(await refusal(future)).toContain('recording format version 3; this troupe reads versions 1 and 2 only');

    const dangling = join(dir, 'dangling.jsonl');
    const firstModel = lines.findIndex((line) => line.startsWith('{"k":"model"'));
    const model = JSON.parse(lines[firstModel] ?? '{}') as { request: { messages: unknown[] } };
    model.request.messages[0] = 999;
    writeFileSync(dangling, [...lines.slice(0, firstModel), JSON.stringify(model), ...lines.slice(firstModel + 1)].join('\n'));
    expect(await refusal(dangling)).toContain(`line ${firstModel + 1}: request.messages.0 refers to message 999, which no earlier line holds`);

    const other = join(dir, 'other.jsonl');
    writeFileSync(other, '{"hello":"world"}\n');
    expect(await refusal(other)).toContain('line 1 is not the header of a troupe recording');
  });
});

describe('a recording whose process exits without shutting the runtime down', () => {
  it('holds what the run recorded up to the exit, its last lines written as the process exits', async () => {
    const file = join(await tempDir(), 'exited.jsonl');
    const child = spawn(process.execPath, processArgs('test/replay/exitingRecorder.ts', [file]), { stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    expect(await new Promise((resolve) => child.on('close', resolve))).toBe(0);
    const [answerId, status] = stdout.trim().split(' ');
    expect(status).toBe('completed');
    const tasks = readFileSync(file, 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { k: string; task?: { id: string; status: string } })
      .filter((record) => record.k === 'task');
    expect(tasks.at(-1)?.task).toMatchObject({ id: answerId, status: 'completed' });
  });

  it('killed outright (kill -9), leaves every line before its last readable, with no gap', async () => {
    const file = join(await tempDir(), 'killed.jsonl');
    await runUntilKilled('test/replay/exitingRecorder.ts', [file, 'forever'], { acks: 20, jitterMs: 3 });
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain('\u0000');
    const lines = text.split('\n').slice(0, -1);
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines) expect(() => JSON.parse(line) as unknown).not.toThrow();
  });
});
