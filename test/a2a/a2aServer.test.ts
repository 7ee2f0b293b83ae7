import { type Message, type StreamResponse, type Task, Role, TaskState } from '@a2a-js/sdk';
import { type Client, ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import { parseLegacyAgentCard } from '@a2a-js/sdk/compat/v0_3/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Gates, a2aClient, a2aTools, commandModel } from '../support/a2aSociety.js';
import { type Served, serve } from '../support/httpServerFixture.js';

const token = 'a2a-test-token';
const gates = new Gates();
let served: Served;
let client: Client;

beforeAll(async () => {
  served = await serve({ memory: true, model: commandModel(gates), runtime: { tools: a2aTools(gates), maxInputChars: 2000 }, server: { token } });
  client = await a2aClient(served.url, token);
});
afterAll(async () => {
  await served.close();
});

let counter = 0;
/** A user message of `text` (in `contextId`, about `taskId` when given, with data parts after the text). */
function userMessage(text: string, ids: { contextId?: string; taskId?: string } = {}, data: unknown[] = [], metadata?: Record<string, unknown>): Message {
  const textParts = text === '' ? [] : [{ content: { $case: 'text' as const, value: text }, mediaType: 'text/plain', filename: '', metadata: undefined }];
  const dataParts = data.map((value) => ({ content: { $case: 'data' as const, value }, mediaType: 'application/json', filename: '', metadata: undefined }));
  return {
    messageId: `m-${++counter}`,
    contextId: ids.contextId ?? '',
    taskId: ids.taskId ?? '',
    role: Role.ROLE_USER,
    parts: [...textParts, ...dataParts],
    metadata,
    extensions: [],
    referenceTaskIds: [],
  };
}

const send = (message: Message) => ({ tenant: '', message, configuration: undefined, metadata: undefined });

function asTask(result: Message | Task): Task {
  if (!('status' in result)) throw new Error(`expected a task, got a message: ${JSON.stringify(result)}`);
  return result;
}

const textOf = (message: Message | undefined): string =>
  (message?.parts ?? []).flatMap((part) => (part.content?.$case === 'text' ? [part.content.value] : [])).join('');

/** Reads a stream until `stop` says so (or it ends), leaving it open for more. */
async function readUntil(stream: AsyncGenerator<StreamResponse>, stop: (event: StreamResponse) => boolean): Promise<StreamResponse[]> {
  const seen: StreamResponse[] = [];
  for (let next = await stream.next(); next.done !== true; next = await stream.next()) {
    seen.push(next.value);
    if (stop(next.value)) break;
  }
  return seen;
}

const stateOf = (event: StreamResponse): TaskState | undefined =>
  event.payload?.$case === 'statusUpdate' ? event.payload.value.status?.state : event.payload?.$case === 'task' ? event.payload.value.status?.state : undefined;

describe('troupe as an A2A server, through the official SDK client', () => {
  it('serves a valid agent card naming its endpoint, streaming, the bearer scheme and the society as skills', async () => {
    const card = await client.getAgentCard();
    expect(card.name).toBe('troupe');
    expect(card.capabilities?.streaming).toBe(true);
    expect(card.supportedInterfaces.map((face) => [face.url, face.protocolBinding, face.protocolVersion])).toEqual([
      [`${served.url}/a2a`, 'JSONRPC', '1.0'],
      [`${served.url}/a2a`, 'JSONRPC', '0.3'],
    ]);
    expect(card.securitySchemes['bearer']?.scheme).toMatchObject({ $case: 'httpAuthSecurityScheme', value: { scheme: 'Bearer' } });
    await served.rt.createRole({ name: 'reviewer', prompt: 'Reviews code.', description: 'reviews TypeScript' });
    const again = await (await a2aClient(served.url, token)).getAgentCard();
    expect(again.skills.map((skill) => [skill.id, skill.description])).toContainEqual(['role:reviewer', 'reviews TypeScript']);
  });

  it("serves a v0.3 client the v0.3 card, which the SDK's v0.3 reader and transport then talk to", async () => {
    const methods: unknown[] = [];
    const fetchImpl: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set('authorization', `Bearer ${token}`);
      if (typeof init?.body === 'string') methods.push((JSON.parse(init.body) as { method?: unknown }).method);
      return fetch(input, { ...init, headers });
    };
    // A v0.3 client names no version; it reads the v0.3 fields and ignores the v1.0 ones kept beside.
    const response = await fetch(`${served.url}/.well-known/agent-card.json`);
    expect(response.headers.get('vary')).toMatch(/A2A-Version/i);
    const { supportedInterfaces, ...legacy } = (await response.json()) as Record<string, unknown>;
    expect(legacy).toMatchObject({
      protocolVersion: '0.3',
      url: `${served.url}/a2a`,
      preferredTransport: 'JSONRPC',
      capabilities: { streaming: true },
      securitySchemes: { bearer: { type: 'http', scheme: 'Bearer' } },
      security: [{ bearer: [] }],
    });
    expect(supportedInterfaces).toHaveLength(2);
    const card = parseLegacyAgentCard(legacy);
    const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      // eslint-disable-next-line @typescript-eslint/no-unsafe-class-instance-assignment
      transports: [new JsonRpcTransportFactory({ fetchImpl, legacyCompat: { enabled: true } })],
    });
    const old = await new ClientFactory(options).createFromAgentCard(card);
    const task = asTask(await old.sendMessage(send(userMessage('hello from v0.3'))));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(task.status?.message)).toMatch(/^answer: [^]*hello from v0\.3/);
    expect(methods).toEqual(['message/send']);
  });

  it('completes a task: SendMessage answers with the completed task, GetTask reads it back', async () => {
    const task = asTask(await client.sendMessage(send(userMessage('hello there'))));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(task.status?.message)).toMatch(/^answer: [^]*hello there/);
    const read = await client.getTask({ tenant: '', id: task.id, historyLength: undefined });
    expect(read.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(read.contextId).toBe(task.contextId);
  });

  it('answers with a plain message when the message asks for one (metadata.replyAs)', async () => {
    const reply = await client.sendMessage(send(userMessage('just say it', {}, [], { replyAs: 'message' })));
    expect('status' in reply).toBe(false);
    expect(textOf(reply as Message)).toMatch(/^answer: [^]*just say it/);
  });

  it('streams a delayed completion: submitted, working on the tool call, then completed', async () => {
    const stream = client.sendMessageStream(send(userMessage('run wait_gate {"gate":"delayed"}')));
    const first = await readUntil(stream, (event) => stateOf(event) === TaskState.TASK_STATE_WORKING);
    expect(first[0]?.payload?.$case).toBe('task');
    gates.open('delayed');
    const rest = await readUntil(stream, () => false);
    expect(rest.map(stateOf).at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('returns the artifacts of a task: text, file and data parts', async () => {
    const task = asTask(await client.sendMessage(send(userMessage('run make_artifacts'))));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const parts = task.artifacts.map((artifact) => [artifact.name, artifact.parts[0]?.content?.$case, artifact.parts[0]?.mediaType]);
    expect(parts).toEqual([
      ['notes.txt', 'text', 'text/plain'],
      ['chart.png', 'raw', 'image/png'],
      ['figures.json', 'data', 'application/json'],
    ]);
    expect(task.artifacts[2]?.parts[0]?.content).toEqual({ $case: 'data', value: { revenue: 120 } });
    expect([...((task.artifacts[1]?.parts[0]?.content?.value as Uint8Array | undefined) ?? [])]).toEqual([137, 80, 78, 71]);
  });

  it('rejects a task troupe refuses (a text over maxInputChars), saying why', async () => {
    const task = asTask(await client.sendMessage(send(userMessage('x'.repeat(3000)))));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_REJECTED);
    expect(textOf(task.status?.message)).toMatch(/text/);
  });

  it('goes input-required for an approval, and the follow-up message decides it', async () => {
    const paused = asTask(await client.sendMessage(send(userMessage('run guarded {"target":"prod"}'))));
    expect(paused.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const [approval] = served.rt.approvals();
    expect(approval?.tool).toBe('guarded');
    const wrong = asTask(await client.sendMessage(send(userMessage('', { taskId: paused.id, contextId: paused.contextId }, [{ action: 'maybe' }]))));
    expect(wrong.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(textOf(wrong.status?.message)).toMatch(/invalid reply: parts\[0\]\.action/);
    const done = asTask(
      await client.sendMessage(send(userMessage('', { taskId: paused.id, contextId: paused.contextId }, [{ approval: approval?.id, action: 'approve' }]))),
    );
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(done.status?.message)).toContain('guarded ran on prod');
  });

  it('cancels a working task for real: its model call is aborted and the troupe Task is canceled; a finished task cannot be canceled', async () => {
    const stream = client.sendMessageStream(send(userMessage('hold model cancel')));
    const [first] = await readUntil(stream, () => true);
    const task = first?.payload?.$case === 'task' ? first.payload.value : undefined;
    await gates.untilHeld('cancel');
    const canceled = await client.cancelTask({ tenant: '', id: task?.id ?? '', metadata: undefined });
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    const rest = await readUntil(stream, () => false);
    expect(rest.map(stateOf).at(-1)).toBe(TaskState.TASK_STATE_CANCELED);
    // The turn was stopped where it was: the model call in flight saw its abort, and the troupe Task answered canceled.
    expect(String(await gates.untilAborted('cancel'))).toMatch(/left the turn/);
    const answer = await served.rt.waitForAnswer(String(task?.metadata?.['troupeTaskId']), { timeoutMs: 10_000 });
    expect(answer).toMatchObject({ status: 'canceled', error: { code: 'aborted', message: 'canceled by user: the A2A client canceled the task' } });
    const done = asTask(await client.sendMessage(send(userMessage('hello after'))));
    await expect(client.cancelTask({ tenant: '', id: done.id, metadata: undefined })).rejects.toThrow(/not cancelable/i);
  });

  it('resubscribes to a task after its stream was dropped, and sees it complete', async () => {
    const dropped = new AbortController();
    const stream = client.sendMessageStream(send(userMessage('run wait_gate {"gate":"resubscribe"}')), { signal: dropped.signal });
    const [first] = await readUntil(stream, () => true);
    const id = first?.payload?.$case === 'task' ? first.payload.value.id : '';
    // The client goes away mid-task: its connection is cut, the task goes on.
    dropped.abort();
    await stream.return(undefined).catch(() => undefined);
    const again = client.resubscribeTask({ tenant: '', id });
    const opening = await readUntil(again, () => true);
    expect(opening[0]?.payload?.$case).toBe('task');
    gates.open('resubscribe');
    const rest = await readUntil(again, () => false);
    expect(rest.map(stateOf).at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('keeps a multi-turn conversation in one context, which is one troupe session, and lists its tasks', async () => {
    const first = asTask(await client.sendMessage(send(userMessage('my name is Ada'))));
    const second = asTask(await client.sendMessage(send(userMessage('what is my name', { contextId: first.contextId }))));
    expect(second.contextId).toBe(first.contextId);
    expect(second.id).not.toBe(first.id);
    // Both answers went to the user in the session named by the context.
    const answers = served.rt.inbox().filter((task) => task.sessionId === first.contextId && task.status === 'completed');
    expect(answers).toHaveLength(2);
    const listed = await client.listTasks({
      tenant: '',
      contextId: first.contextId,
      status: TaskState.TASK_STATE_UNSPECIFIED,
      pageSize: 1,
      pageToken: '',
      historyLength: undefined,
      statusTimestampAfter: undefined,
      includeArtifacts: false,
    });
    expect(listed.totalSize).toBe(2);
    expect(listed.tasks.map((task) => task.id)).toEqual([second.id]);
    const next = await client.listTasks({
      tenant: '',
      contextId: first.contextId,
      status: TaskState.TASK_STATE_UNSPECIFIED,
      pageSize: 1,
      pageToken: listed.nextPageToken,
      historyLength: undefined,
      statusTimestampAfter: undefined,
      includeArtifacts: false,
    });
    expect(next.tasks.map((task) => task.id)).toEqual([first.id]);
  });

  it('answers bad requests with JSON-RPC errors, and the service goes on', async () => {
    const post = async (body: string, headers: Record<string, string> = {}) => {
      const response = await fetch(`${served.url}/a2a`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'a2a-version': '1.0', ...headers },
        body,
      });
      return { status: response.status, body: (await response.json()) as { error?: { code: number; message: string } } };
    };
    expect((await post('{"jsonrpc": "2.0", "id": 1, "meth')).body.error?.code).toBe(-32700);
    expect((await post('{"jsonrpc":"2.0","id":2,"method":"NoSuchMethod","params":{}}')).body.error?.code).toBe(-32601);
    expect((await post('{"jsonrpc":"2.0","id":3,"method":"GetTask","params":{"id":"no-such-task"}}')).body.error?.code).toBe(-32001);
    expect((await post('{"jsonrpc":"2.0","id":4,"method":"SendMessage","params":{}}')).body.error?.code).toBe(-32602);
    expect([-32600, -32602]).toContain((await post('[1,2]')).body.error?.code);
    expect((await post('{"jsonrpc":"2.0","id":5,"method":"GetTask","params":{"id":"x"}}', { 'a2a-version': '9.9' })).body.error?.message).toMatch(
      /not supported/,
    );
    expect((await post('{}', { authorization: 'Bearer wrong' })).status).toBe(401);
    const legacy = await post(
      '{"jsonrpc":"2.0","id":6,"method":"message/send","params":{"message":{"kind":"message","messageId":"v03","role":"user","parts":[{"kind":"text","text":"from an old client"}]}}}',
      { 'a2a-version': '0.3' },
    );
    expect(legacy.body).toMatchObject({ result: { kind: 'task', status: { state: 'completed' } } });
    expect(asTask(await client.sendMessage(send(userMessage('still here')))).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });
});

describe('A2A streams share the event streams budget', () => {
  it('refuses a stream past maxEventStreams clearly, before any work starts, and an event stream while the A2A one holds the budget', async () => {
    const budgetGates = new Gates();
    const limited = await serve({ memory: true, model: commandModel(budgetGates), runtime: { tools: a2aTools(budgetGates) }, server: { maxEventStreams: 1 } });
    try {
      const sent: string[] = [];
      limited.rt.bus.on('execute').subscribe((task) => sent.push(JSON.stringify(task.parameters)));
      const sdk = await a2aClient(limited.url);
      const holding = sdk.sendMessageStream(send(userMessage('run wait_gate {"gate":"budget"}')));
      await readUntil(holding, (event) => stateOf(event) === TaskState.TASK_STATE_WORKING);
      await expect(readUntil(sdk.sendMessageStream(send(userMessage('one stream too many'))), () => true)).rejects.toThrow(
        /the server already has 1 event streams open \(maxEventStreams\)/,
      );
      const events = await fetch(`${limited.url}/api/events`);
      expect(events.status).toBe(429);
      expect(((await events.json()) as { error: { code: string } }).error.code).toBe('too_many_streams');
      expect(sent.some((text) => text.includes('one stream too many'))).toBe(false);
      budgetGates.open('budget');
      expect((await readUntil(holding, () => false)).map(stateOf).at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);
    } finally {
      await limited.close();
    }
  });
});
