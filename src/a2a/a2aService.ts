import { A2A_VERSION_HEADER, type AgentCard } from '@a2a-js/sdk';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import { DefaultRequestHandler, JsonRpcTransportHandler, ServerCallContext, validateVersion } from '@a2a-js/sdk/server';
import { z } from 'zod';
import type { Runtime } from '../runtime/index.js';
import { parseOrThrow } from '../task/index.js';
import { A2aTaskStore } from './a2aTaskStore.js';
import { agentCardOf, agentName, cardJson, legacyCardJson } from './agentCard.js';
import { TaskWatch } from './taskWatch.js';
import { TroupeExecutor } from './troupeExecutor.js';
import { RequestTraces } from './a2aTrace.js';
import { describeError } from '../errors.js';

const positive = () => z.number({ error: 'must be a number' }).int('must be a whole number').positive('must be > 0');

/** What the A2A endpoint keeps, with its defaults (docs/a2a.md, "Limits"). */
const A2aLimitsSchema = z
  .object({
    /** A2A tasks kept for GetTask and ListTasks; past it the oldest ended one is forgotten. */
    maxTasks: positive().max(1_000_000, 'must be at most 1000000').default(1000),
    /** Messages kept in each A2A task's history (the newest). */
    maxHistory: positive().max(10_000, 'must be at most 10000').default(20),
    /** Skills (roles, then loaded skills) the agent card lists at most. */
    maxCardSkills: positive().max(10_000, 'must be at most 10000').default(100),
  })
  .strict();

export type A2aLimitOptions = z.input<typeof A2aLimitsSchema>;

/** The limits given, each checked (a bad one refused naming it, `a2a.maxTasks`), with the defaults for the rest. */
export function resolveA2aLimits(options: A2aLimitOptions): z.output<typeof A2aLimitsSchema> {
  return parseOrThrow(A2aLimitsSchema, options, 'a2a');
}

/** One JSON-RPC answer, or a stream of them (SendStreamingMessage, SubscribeToTask). */
export type JsonRpcAnswer = Awaited<ReturnType<JsonRpcTransportHandler['handle']>>;

/** What the HTTP server needs to speak A2A for a runtime: the card and the JSON-RPC handler. */
export interface A2aService {
  /**
   * The agent card as JSON, naming `url` as its JSON-RPC endpoint, in the shape of the protocol
   * version the request's `A2A-Version` header names: v1.0 for `1.0`, v0.3 without one or for `0.x`.
   */
  card(url: string, headers: Readonly<Record<string, string | string[] | undefined>>): unknown;
  /** Answers one JSON-RPC request (`body` as parsed JSON), in the protocol version its `A2A-Version` header asks for (none: v0.3). */
  handle(body: unknown, headers: Readonly<Record<string, string | string[] | undefined>>): Promise<JsonRpcAnswer>;
  /** A JSON-RPC error answer for an error thrown before a request could be handled. */
  errorAnswer(error: unknown, id: string | number | null): JsonRpcAnswer;
}

/**
 * The A2A protocol (v1.0, and v0.3 through the SDK's compatibility layer) for a runtime, on the
 * official SDK's request handler; `auth` says whether its card names the bearer scheme.
 */
export function createA2aService(runtime: Runtime, options: { auth: boolean; limits?: A2aLimitOptions }): A2aService {
  const limits = resolveA2aLimits(options.limits ?? {});
  const store = new A2aTaskStore(limits);
  const traces = new RequestTraces(runtime.tracer, agentName);
  const executor = new TroupeExecutor(runtime, new TaskWatch(runtime), store, traces);
  const cardFor = (url: string): AgentCard => agentCardOf(runtime, { url, auth: options.auth, maxSkills: limits.maxCardSkills });
  // The handler reads its card for the versions served and the input modes: the endpoint's URL plays no part there.
  const handler = new DefaultRequestHandler(cardFor(''), store, executor);
  const current = new JsonRpcTransportHandler(handler);
  const legacy = new LegacyJsonRpcTransportHandler(handler);
  return {
    card: (url, headers) => (versionOf(headers).startsWith('0.') ? legacyCardJson(cardFor(url)) : cardJson(cardFor(url))),
    handle: async (body, headers) => {
      const requestedVersion = versionOf(headers);
      const context = new ServerCallContext({ requestedVersion });
      try {
        validateVersion(requestedVersion, await handler.getAgentCard(), 'JSONRPC');
      } catch (error) {
        return { jsonrpc: '2.0', id: idOf(body), error: JsonRpcTransportHandler.mapToJSONRPCError(error) };
      }
      const transport = requestedVersion === '0.3' ? legacy : current;
      const ended = traces.start(body, headers);
      if (ended === undefined) return transport.handle(body as Record<string, unknown>, context);
      const answer = await transport.handle(body as Record<string, unknown>, context).catch((error: unknown) => {
        ended({ code: -32603, message: describeError(error) });
        throw error;
      });
      if (Symbol.asyncIterator in answer) return tracedStream(answer, ended);
      ended(rpcError(answer));
      return answer;
    },
    errorAnswer: (error, id) => ({ jsonrpc: '2.0', id, error: JsonRpcTransportHandler.mapToJSONRPCError(error) }),
  };
}

/** The JSON-RPC error an answer carries, if any. */
function rpcError(answer: object): { code: number; message: string } | undefined {
  const error = 'error' in answer ? answer.error : undefined;
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, message } = error as { code?: unknown; message?: unknown };
  return { code: typeof code === 'number' ? code : -32603, message: typeof message === 'string' ? message : '' };
}

/** A streamed answer whose span ends with the stream (its last answer an error, or not). */
async function* tracedStream<T extends object>(
  answers: AsyncGenerator<T, void, undefined>,
  ended: (error: { code: number; message: string } | undefined) => void,
): AsyncGenerator<T, void, undefined> {
  let error: { code: number; message: string } | undefined;
  try {
    for await (const answer of answers) {
      error = rpcError(answer);
      yield answer;
    }
  } finally {
    ended(error);
  }
}

/** The protocol version a request asks for in its `A2A-Version` header; one without it is a v0.3 client's. */
function versionOf(headers: Readonly<Record<string, string | string[] | undefined>>): string {
  const header = headers[A2A_VERSION_HEADER.toLowerCase()];
  return (Array.isArray(header) ? header[0] : header) ?? '0.3';
}

/** The id of a JSON-RPC request, when it has one a response may echo. */
export function idOf(body: unknown): string | number | null {
  if (typeof body !== 'object' || body === null || !('id' in body)) return null;
  const { id } = body;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}
