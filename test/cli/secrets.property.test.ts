import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { Actions, type Task } from '../../src/task/index.js';
import { type OpenAICompatibleServer, startOpenAICompatibleServer } from '../../src/testing.js';
import { runCli } from '../support/cliProcess.js';
import { loggedSeed } from '../support/loggedSeed.js';
import { lastToolResult, toolResultsText } from '../support/scriptByRole.js';
import { type Placed, anySecretArb, exposures, headerSafeSecretArb, placedArb, textOf, tokenSecretArb } from '../support/secretArbitraries.js';
import { ServeProcess } from '../support/serveProcess.js';

// Issue 13, point 12, through the real CLI: secrets configured as a user configures them
// (OPENAI_API_KEY, TROUPE_TOKEN, TROUPE_SECRETS) and placed in the requirement, the model's
// replies and tool calls, and its errors, never appear in what `troupe run` (lines and --json),
// `troupe messages`, `troupe org`, `troupe serve` (console, logs at debug, HTTP) or the
// inspector stream let out. Child processes are slow to start, so each run of the property
// configures a whole batch of secrets at once and places them all.

let model: OpenAICompatibleServer;
let inspector: WebSocketServer;
let inspected: string[] = [];
let root: string;
beforeAll(async () => {
  model = await startOpenAICompatibleServer();
  inspector = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  inspector.on('connection', (socket) => socket.on('message', (data: Buffer) => inspected.push(data.toString())));
  await new Promise<void>((resolve) => inspector.once('listening', () => resolve()));
  root = await mkdtemp(join(tmpdir(), 'troupe-cli-secrets-'));
});
afterAll(async () => {
  inspector.close();
  await model.close();
  await rm(root, { recursive: true, force: true });
});

/** TROUPE_SECRETS is a comma-separated list of trimmed values, in an environment that cannot hold NUL. */
const listableSecretArb = anySecretArb.filter((secret) => !secret.includes(',') && !secret.includes('\u0000') && secret.trim() === secret);

/** OPENAI_API_KEY, TROUPE_TOKEN, then the listed ones. */
const secretBatchArb = fc
  .tuple(headerSafeSecretArb, tokenSecretArb, fc.uniqueArray(listableSecretArb, { minLength: 40, maxLength: 50 }))
  .map(([key, token, listed]) => [key, token, ...listed])
  .filter((secrets) => new Set(secrets).size === secrets.length);

/** Several secrets in one text, so a batch of fifty fits the dozen places a run has. */
const slotArb = (secrets: number): fc.Arbitrary<Placed[]> => fc.array(placedArb(secrets), { minLength: 3, maxLength: 6 });

const slotNames = ['requirement', 'reply', 'rolePrompt', 'delegated', 'errorBody', 'rawErrorBody', 'reason', 'answer', 'console', 'consoleAnswer'] as const;
type Slots = Record<(typeof slotNames)[number], Placed[]>;

const slotsArb = (secrets: number): fc.Arbitrary<Slots> =>
  fc.record(Object.fromEntries(slotNames.map((name) => [name, slotArb(secrets)])) as Record<(typeof slotNames)[number], fc.Arbitrary<Placed[]>>);

const textIn = (secrets: readonly string[], slot: readonly Placed[]): string => slot.map((placed) => textOf(secrets, placed)).join(' ');

/** The streamed text of an NDJSON run, its `node.thinking` fragments joined: a secret split across two is whole only there. */
function thinkingOf(ndjson: string): string {
  return ndjson
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Task)
    .filter((task) => task.action === Actions.thinking)
    .map((task) => task.parameters['text'])
    .filter((text) => typeof text === 'string')
    .join('');
}

/**
 * One run: `troupe run` answers a requirement (root creates a role, spawns a child and
 * delegates to it; the child fails on model errors that echo secrets, a 500 retried, then a raw
 * 400 page; root terminates it and answers); the data dir is read back by `messages` and `org`
 * (as lines or JSON, by turns); `troupe serve` takes a console line and HTTP requests. Every
 * output, by name.
 */
async function outputsOf(secrets: readonly string[], slots: Slots, run: number): Promise<Record<string, string>> {
  const [apiKey = '', token = ''] = secrets;
  const text = (slot: readonly Placed[]): string => textIn(secrets, slot);
  const env = {
    OPENAI_BASE_URL: model.baseURL,
    OPENAI_API_KEY: apiKey,
    TROUPE_TOKEN: token,
    TROUPE_SECRETS: secrets.slice(2).join(','),
    TROUPE_LOG_LEVEL: 'debug',
    TROUPE_DATA_DIR: join(root, `run-${run}`),
  };
  model.script(
    { text: text(slots.reply), toolCalls: [{ name: 'create_role', arguments: { name: 'keeper', prompt: text(slots.rolePrompt) } }] },
    { toolCalls: [{ name: 'spawn_agent', arguments: { role: 'keeper' } }] },
    (request) => ({ toolCalls: [{ name: 'delegate_task', arguments: { agentId: lastToolResult(request)['agentId'], task: text(slots.delegated) } }] }),
    { status: 500, message: text(slots.errorBody) },
    { raw: { status: 400, contentType: 'text/plain', body: text(slots.rawErrorBody) } },
    (request) => ({
      text: toolResultsText(request),
      toolCalls: [
        { name: 'terminate_agent', arguments: { agentId: lastToolResult(request)['agentId'], reason: text(slots.reason).slice(0, 500), mode: 'abort' } },
      ],
    }),
    { text: text(slots.answer) },
  );
  inspected = [];
  const port = (inspector.address() as { port: number }).port;
  const answered = await runCli(['run', text(slots.requirement), '--json', '--verbose', '--inspect-ws', `ws://127.0.0.1:${port}`], env);
  expect(answered.code, answered.stderr).toBe(0);
  const taskId = /troupe: task (\S+)/.exec(answered.stderr)?.[1] ?? 'none';
  // Lines in one run, JSON in the next: four processes a run instead of six.
  const json = run % 2 === 0 ? ['--json'] : [];
  const [messages, org, served] = await Promise.all([
    runCli(['messages', taskId, ...json], env),
    runCli(['org', ...(json.length === 0 ? ['--json'] : [])], env),
    serveOutputs(env, text(slots.console), text(slots.consoleAnswer), join(root, `serve-${run}`)),
  ]);
  const outputs: Record<string, string> = { 'inspector stream': inspected.join('\n'), 'run --json, thinking joined': thinkingOf(answered.stdout), ...served };
  for (const [name, result] of Object.entries({ 'run --json': answered, messages, org })) {
    expect(result.code, `${name}: ${result.stderr}`).toBe(0);
    outputs[`${name} stdout`] = result.stdout;
    outputs[`${name} stderr`] = result.stderr;
  }
  // The child's turn failed on the model, retried once first: the paths an echoed key takes were taken.
  expect(answered.stderr).toContain('model call failed; retrying');
  expect(answered.stdout).toContain('"code":"model_error"');
  return outputs;
}

/** `troupe serve`: a console line answered, an event stream opened with ?access_token=, a refusal that names its path; then SIGTERM. */
async function serveOutputs(env: Record<string, string>, line: string, answer: string, dataDir: string): Promise<Record<string, string>> {
  const serve = new ServeProcess(['--port', '0', '--data-dir', dataDir], env);
  const url = await serve.url();
  // The script is shared: serve's one call is queued once the runs before it have used theirs.
  model.script({ text: answer });
  // One console line (no line breaks), for root (not `@agent …`).
  serve.write(`please: ${line.replace(/[\r\n\u2028\u2029]/g, ' ')}`);
  await serve.until(() => serve.stdout.includes('[completed]'), 'the console answer');
  const token = env['TROUPE_TOKEN'] ?? '';
  const events = await fetch(`${url}/api/events?access_token=${encodeURIComponent(token)}`);
  await events.body?.cancel();
  const refused = await fetch(`${url}/api/agents/${encodeURIComponent(env['OPENAI_API_KEY'] ?? '')}`, { headers: { authorization: `Bearer ${token}` } });
  const body = `${refused.status} ${await refused.text()}`;
  serve.signal('SIGTERM');
  expect(await serve.done).toBe(0);
  return { 'serve stdout': serve.stdout, 'serve stderr': serve.stderr, 'serve refusal': body };
}

describe('configured secrets never leave the CLI', () => {
  it(
    'a batch of secrets placed in requirements, model replies, tool calls and model errors shows in no output of run, messages, org, serve or the inspector',
    { timeout: 300_000 },
    async () => {
      let run = 0;
      await fc.assert(
        fc.asyncProperty(
          secretBatchArb.chain((secrets) => fc.tuple(fc.constant(secrets), slotsArb(secrets.length))),
          async ([secrets, slots]) => {
            const outputs = await outputsOf(secrets, slots, (run += 1));
            expect(exposures(secrets, outputs)).toEqual([]);
            // Not vacuous: the key reached the model, and secrets were taken out of what was printed.
            expect(model.requests.at(-1)?.headers['authorization']).toBe(`Bearer ${secrets[0] ?? ''}`);
            expect(outputs['run --json stdout']).toContain('[REDACTED]');
            expect(outputs['inspector stream']).toContain('[REDACTED]');
          },
        ),
        // Each run starts four processes; a failure is reported as it is, not shrunk process by process.
        { ...loggedSeed('secrets in CLI outputs', 2), endOnFailure: true },
      );
    },
  );
});
