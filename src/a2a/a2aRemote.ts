import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Role } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { z } from 'zod';
import { onAbort } from '../abort.js';
import { describeError } from '../errors.js';
import { AgentIdSchema, parseOrThrow } from '../task/index.js';
import { type ToolContext, type ToolResult, errorResult } from '../tools/index.js';
import { textPart } from './a2aParts.js';
import { remoteCallTrace } from './a2aTrace.js';
import { DelegationTask, type RemoteProgress, localArtifacts, readRemote } from './remoteA2aTask.js';

/** How a remote A2A agent is reached and how long, and how often, a delegation to it is tried. */
export const A2aRemoteSchema = z.object({
  /** The remote's base URL; its card is read from `<url>/.well-known/agent-card.json`. */
  url: z.url(),
  /** Sent as `Authorization: Bearer <token>` to the remote. */
  token: z.string().min(1).optional(),
  /** Longest one delegation may take, from the first request to the remote's answer. */
  timeoutMs: z.number().int().positive().max(3_600_000).default(120_000),
  /** Attempts after the first to reach the remote (send, or resubscribe to a task it accepted). */
  retries: z.number().int().min(0).max(10).default(2),
  /** Pause before the first retry; doubled for each one after. */
  retryDelayMs: z.number().int().min(0).max(60_000).default(250),
});

type A2aRemoteOptions = z.output<typeof A2aRemoteSchema> & { readonly name: string };

/**
 * A remote A2A agent work is given to: the task is sent with the official SDK's client
 * (`SendStreamingMessage`), each update of the remote task goes on the local bus as the local
 * Task `a2a.delegate` to `a2a-<name>`, and the remote's answer (and its artifacts) is the
 * result. A remote that cannot be reached is tried `retries` more times; a stream that drops
 * mid-task is resubscribed to, as many times; past them, or past the timeout, the local Task
 * fails saying why. Canceling the calling turn cancels the remote task. The client is made once,
 * when first used.
 */
export class A2aRemote {
  readonly #options: A2aRemoteOptions;
  readonly #remoteId: string;
  #client: Promise<Client> | undefined;

  constructor(options: A2aRemoteOptions, field: string) {
    this.#options = options;
    this.#remoteId = parseOrThrow(AgentIdSchema, `a2a-${options.name}`, field);
  }

  /** Gives `text` to the remote for the tool call in `context`; `timeoutMs` shortens the remote's own limit. */
  run(text: string, context: ToolContext, timeoutMs = this.#options.timeoutMs): Promise<ToolResult> {
    const { url } = this.#options;
    const limit = Math.min(timeoutMs, this.#options.timeoutMs);
    const delegation = new DelegationTask(context.society, { from: context.agentId, to: this.#remoteId, about: context.task, text, url });
    const signal = AbortSignal.any([context.signal, AbortSignal.timeout(limit)]);
    const traced = remoteCallTrace(context, { name: this.#options.name, url });
    const run = { options: { ...this.#options, timeoutMs: limit }, connect: () => this.#connect(), delegation, text, context, signal, headers: traced.headers };
    return delegate(run).then((result) => {
      traced.ended(result, delegation.remoteTaskId);
      return result;
    });
  }

  #connect(): Promise<Client> {
    this.#client ??= connectTo(this.#options.url, this.#options.token).catch((error: unknown) => {
      this.#client = undefined;
      throw error;
    });
    return this.#client;
  }
}

interface Delegation {
  readonly options: A2aRemoteOptions;
  readonly connect: () => Promise<Client>;
  readonly delegation: DelegationTask;
  readonly text: string;
  readonly context: ToolContext;
  readonly signal: AbortSignal;
  /** Sent with every request of the delegation: the trace context of its client span. */
  readonly headers: Record<string, string>;
}

/** How long a delegation stopped before the remote named its task waits for the name, to cancel the task by it. */
const namingGraceMs = 5_000;

/**
 * The signal a remote's stream is read under: `signal`, except that a stop before the remote has
 * named its task (a message sent, its first answer not in yet) waits for the name, up to
 * `namingGraceMs`, so the task the remote started can be canceled rather than left running.
 */
function untilNamed(signal: AbortSignal, progress: RemoteProgress): AbortSignal {
  const stop = new AbortController();
  onAbort(signal, () => {
    if (progress.taskId !== undefined) {
      stop.abort(signal.reason);
      return;
    }
    const grace = setTimeout(() => stop.abort(signal.reason), namingGraceMs);
    grace.unref();
    progress.named = () => {
      clearTimeout(grace);
      stop.abort(signal.reason);
    };
  });
  return stop.signal;
}

async function delegate(run: Delegation): Promise<ToolResult> {
  const { options, delegation, signal } = run;
  const progress: RemoteProgress = { taskId: undefined, status: 'submitted', text: '', artifacts: new Map() };
  const reading = untilNamed(signal, progress);
  let lastError: unknown;
  for (let attempt = 0; attempt <= options.retries; attempt++) {
    if (attempt > 0) await sleep(options.retryDelayMs * 2 ** (attempt - 1), undefined, { signal }).catch(() => undefined);
    if (signal.aborted) break;
    try {
      const client = await run.connect();
      // Before the remote has the task, it is sent (again); once it has it, only followed again.
      const stream =
        progress.taskId === undefined
          ? client.sendMessageStream(
              { tenant: '', message: userMessage(run), configuration: undefined, metadata: undefined },
              { signal: reading, serviceParameters: run.headers },
            )
          : client.resubscribeTask({ tenant: '', id: progress.taskId }, { signal: reading, serviceParameters: run.headers });
      if (await readRemote(stream, progress, delegation)) return finished(run, progress);
      lastError = new Error('the stream ended before the task did');
    } catch (error) {
      lastError = error;
    }
  }
  return failed(run, progress, lastError);
}

function userMessage(run: Delegation) {
  return {
    messageId: randomUUID(),
    contextId: run.context.task.sessionId,
    taskId: '',
    role: Role.ROLE_USER,
    parts: [textPart(run.text)],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

function finished(run: Delegation, progress: RemoteProgress): ToolResult {
  const { delegation, options } = run;
  const said = { text: progress.text, ...(progress.taskId === undefined ? {} : { remoteTaskId: progress.taskId }) };
  if (progress.status === 'completed') {
    delegation.update('completed', said);
    return { content: progress.text, artifacts: localArtifacts(progress.artifacts.values()) };
  }
  if (progress.status === 'input-required') {
    delegation.update('input-required', said);
    return { content: `${options.name} needs input before it can go on: ${progress.text}` };
  }
  const message = `the remote A2A agent ${options.name} ended the task ${progress.status}: ${progress.text}`;
  delegation.update(progress.status, { ...said, error: { code: 'tool_error', message } });
  return errorResult(message);
}

/** The delegation gave up: the turn was canceled, the time ran out, or the remote could not be reached (again). */
async function failed(run: Delegation, progress: RemoteProgress, error: unknown): Promise<ToolResult> {
  const { delegation, options, context, signal } = run;
  const where = `the remote A2A agent ${options.name} (${options.url})`;
  if (context.signal.aborted) {
    await cancelRemote(run, progress);
    delegation.update('canceled', { error: { code: 'aborted', message: `the delegation to ${where} was canceled with its turn` } });
    return errorResult(`the delegation to ${where} was canceled`, 'aborted');
  }
  if (signal.aborted) {
    await cancelRemote(run, progress);
    const message = `${where} did not finish within ${options.timeoutMs} ms`;
    delegation.update('failed', { error: { code: 'tool_timeout', message } });
    return errorResult(message, 'tool_timeout');
  }
  const stage = progress.taskId === undefined ? 'could not be reached' : `stopped answering mid-task (task ${progress.taskId})`;
  const message = `${where} ${stage} after ${options.retries + 1} attempts: ${describeError(error)}`;
  delegation.update('failed', { error: { code: 'tool_error', message } });
  return errorResult(message);
}

/** Tells the remote to stop, when it has the task; a remote that cannot be told is not waited for. */
async function cancelRemote(run: Delegation, progress: RemoteProgress): Promise<void> {
  if (progress.taskId === undefined) return;
  const client = await run.connect().catch(() => undefined);
  const options = { signal: AbortSignal.timeout(5_000), serviceParameters: run.headers };
  await client?.cancelTask({ tenant: '', id: progress.taskId, metadata: undefined }, options).catch(() => undefined);
}

/** The SDK's client for the agent at `url` (loaded when first used: a runtime that never delegates never loads it). */
async function connectTo(url: string, token: string | undefined): Promise<Client> {
  const sdk = await import('@a2a-js/sdk/client');
  const fetchImpl: typeof fetch = (resource, init) => {
    const headers = new Headers(init?.headers);
    if (token !== undefined) headers.set('authorization', `Bearer ${token}`);
    return fetch(resource, { ...init, headers });
  };
  const options = sdk.ClientFactoryOptions.createFrom(sdk.ClientFactoryOptions.default, {
    // The SDK declares its options as a class it does not export: a plain object is what its own examples pass.
    // eslint-disable-next-line @typescript-eslint/no-unsafe-class-instance-assignment
    transports: [new sdk.JsonRpcTransportFactory({ fetchImpl })],
    cardResolver: new sdk.DefaultAgentCardResolver({ fetchImpl }),
  });
  return new sdk.ClientFactory(options).createFromUrl(url);
}
