import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Role } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { z } from 'zod';
import { describeError } from '../errors.js';
import { AgentIdSchema, parseOrThrow } from '../task/index.js';
import { type Tool, type ToolContext, type ToolResult, defineTool, errorResult } from '../tools/index.js';
import { textPart } from './a2aParts.js';
import { DelegationTask, type RemoteProgress, localArtifacts, readRemote } from './remoteA2aTask.js';

/** A remote A2A agent as a tool (docs/a2a.md, "Delegating to a remote agent"). */
export const A2aAgentOptionsSchema = z
  .object({
    /** The remote's name: the tool is `a2a_<name>`, its local Tasks go to `a2a-<name>`. */
    name: z.string().regex(/^[a-z0-9_]{1,40}$/, 'must be 1–40 lower-case letters, digits or "_"'),
    /** The remote's base URL; its card is read from `<url>/.well-known/agent-card.json`. */
    url: z.url(),
    /** What the model reads about when to use it. */
    description: z.string().min(1).max(1024).optional(),
    /** Sent as `Authorization: Bearer <token>` to the remote. */
    token: z.string().min(1).optional(),
    /** Longest one delegation may take, from the first request to the remote's answer. */
    timeoutMs: z.number().int().positive().max(3_600_000).default(120_000),
    /** Attempts after the first to reach the remote (send, or resubscribe to a task it accepted). */
    retries: z.number().int().min(0).max(10).default(2),
    /** Pause before the first retry; doubled for each one after. */
    retryDelayMs: z.number().int().min(0).max(60_000).default(250),
  })
  .strict();

export type A2aAgentOptions = z.input<typeof A2aAgentOptionsSchema>;

/**
 * A tool that gives work to a remote A2A agent: the model's task is sent with the official SDK's
 * client (`SendStreamingMessage`), each update of the remote task goes on the local bus as the
 * local Task `a2a.delegate` to `a2a-<name>`, and the remote's answer (and its artifacts) is the
 * tool's result. A remote that cannot be reached is tried `retries` more times; a stream that
 * drops mid-task is resubscribed to, as many times; past them, or past `timeoutMs`, the local
 * Task fails saying why. Canceling the local turn (the agent terminated, the tool timed out)
 * cancels the remote task.
 *
 * @example
 * const rt = await createRuntime({ tools: [a2aAgentTool({ name: 'reviewer', url: 'http://127.0.0.1:4000' })] });
 */
export function a2aAgentTool(input: A2aAgentOptions): Tool {
  const options = parseOrThrow(A2aAgentOptionsSchema, input, 'a2aAgent');
  const remoteId = parseOrThrow(AgentIdSchema, `a2a-${options.name}`, 'a2aAgent.name');
  let client: Promise<Client> | undefined;
  const connect = (): Promise<Client> => {
    client ??= connectTo(options.url, options.token).catch((error: unknown) => {
      client = undefined;
      throw error;
    });
    return client;
  };
  return defineTool({
    name: `a2a_${options.name}`,
    description: options.description ?? `Give a task to the remote agent "${options.name}" (A2A, ${options.url}) and wait for its answer.`,
    parameters: z.object({ task: z.string().min(1).max(100_000).describe('What the remote agent should do') }),
    // The delegation's own timeout governs; the tool's must not cut it short.
    timeoutMs: options.timeoutMs + 5_000,
    annotations: { readOnly: false, destructive: true, idempotent: false, openWorld: true },
    execute: async ({ task }, context) => {
      const delegation = new DelegationTask(context.society, { from: context.agentId, to: remoteId, about: context.task, text: task, url: options.url });
      const signal = AbortSignal.any([context.signal, AbortSignal.timeout(options.timeoutMs)]);
      return delegate({ options, connect, delegation, text: task, context, signal });
    },
  });
}

interface Delegation {
  readonly options: z.output<typeof A2aAgentOptionsSchema>;
  readonly connect: () => Promise<Client>;
  readonly delegation: DelegationTask;
  readonly text: string;
  readonly context: ToolContext;
  readonly signal: AbortSignal;
}

async function delegate(run: Delegation): Promise<ToolResult> {
  const { options, delegation, signal } = run;
  const progress: RemoteProgress = { taskId: undefined, status: 'submitted', text: '', artifacts: new Map() };
  let lastError: unknown;
  for (let attempt = 0; attempt <= options.retries; attempt++) {
    if (attempt > 0) await sleep(options.retryDelayMs * 2 ** (attempt - 1), undefined, { signal }).catch(() => undefined);
    if (signal.aborted) break;
    try {
      const client = await run.connect();
      // Before the remote has the task, it is sent (again); once it has it, only followed again.
      const stream =
        progress.taskId === undefined
          ? client.sendMessageStream({ tenant: '', message: userMessage(run), configuration: undefined, metadata: undefined }, { signal })
          : client.resubscribeTask({ tenant: '', id: progress.taskId }, { signal });
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
  await client?.cancelTask({ tenant: '', id: progress.taskId, metadata: undefined }, { signal: AbortSignal.timeout(5_000) }).catch(() => undefined);
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
