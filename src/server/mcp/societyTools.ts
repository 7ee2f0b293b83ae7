import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Tracer } from '@opentelemetry/api';
import { describeError } from '../../errors.js';
import type { Runtime } from '../../runtime/index.js';
import { type Redactor, redactApproval } from '../../task/index.js';
import { messagesOf, safeRoleNames } from '../readRoutes.js';
import { type Outcome, awaitOutcome } from './answerOutcome.js';
import {
  AwaitArgsSchema,
  ContinueArgsSchema,
  DecideArgsSchema,
  ListAgentsArgsSchema,
  ListApprovalsArgsSchema,
  ReadMessagesArgsSchema,
  SubmitArgsSchema,
} from './mcpToolSchemas.js';
import type { WaitGate } from './waitGate.js';
import { type McpRequestFacts, mcpServerSpan } from './mcpServerTrace.js';

/** Who a decision made through MCP is recorded as made by when it does not say. */
const decidedOverMcp = 'mcp';

/** What a tool's handler gets besides its arguments: the SDK's request context, the parts used here. */
interface CallContext extends McpRequestFacts {
  readonly signal: AbortSignal;
  readonly _meta?: { readonly progressToken?: string | number | undefined; readonly [key: string]: unknown } | undefined;
  readonly sendNotification: (notification: {
    method: 'notifications/progress';
    params: { progressToken: string | number; progress: number; message: string };
  }) => Promise<void>;
}

/** What the tools need besides the runtime: the redactor of all they return, and the bound on calls waiting for answers. */
export interface SocietyToolsContext {
  readonly redactor: Redactor;
  readonly gate: WaitGate;
  /** Aborted when the server stops: calls waiting for answers return their task ids. */
  readonly stopping: AbortSignal;
  /** How clients reach this server, for its spans: `tcp` (`POST /mcp`) or `pipe` (`troupe mcp`). */
  readonly transport: 'tcp' | 'pipe';
}

/** What a tool's handler is wrapped with: the runtime's tracer for its span, and the tools' context. */
interface Wrapping {
  readonly tracer: Tracer;
  readonly tools: SocietyToolsContext;
}

/** `value` as a tool's result: JSON text for any client, the same object as structured content, redacted as written. */
function result(value: object, redactor: Redactor): CallToolResult {
  const text = redactor.json(JSON.stringify(value));
  return { content: [{ type: 'text', text }], structuredContent: JSON.parse(text) as Record<string, unknown> };
}

/**
 * Tool `name`'s handler, traced (a server span continuing the caller's trace) and with every
 * failure an error result the client's model reads, redacted; never a crash.
 */
function guarded<A>(wrapping: Wrapping, name: string, handler: (args: A, context: CallContext) => Promise<object>) {
  const { redactor, transport } = wrapping.tools;
  return async (args: A, context: CallContext): Promise<CallToolResult> => {
    const span = mcpServerSpan(wrapping.tracer, name, context, transport);
    const answer = await span.run(async (): Promise<CallToolResult> => {
      try {
        return result(await handler(args, context), redactor);
      } catch (error) {
        return { content: [{ type: 'text', text: redactor.text(describeError(error)) }], isError: true };
      }
    });
    span.ended(answer);
    return answer;
  };
}

/** Progress notifications for the call, when its client asked for them (a `progressToken`). */
function progressOf(context: CallContext, redactor: Redactor): ((message: string) => void) | undefined {
  const token = context._meta?.progressToken;
  if (token === undefined) return undefined;
  let progress = 0;
  return (message) => {
    progress += 1;
    // A client that went away misses a step; the call still ends by itself.
    context
      .sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress, message: redactor.text(message) } })
      .catch(() => undefined);
  };
}

/** Waits for a Task's outcome within the gate's bound on calls waiting at once. */
async function outcome(
  runtime: Runtime,
  tools: SocietyToolsContext,
  ids: { taskId: string; sessionId: string },
  waitSeconds: number,
  context: CallContext,
): Promise<Outcome> {
  const entered = tools.gate.enter();
  try {
    const onProgress = progressOf(context, tools.redactor);
    const waitMs = entered ? Math.round(waitSeconds * 1000) : 0;
    const got = await awaitOutcome(runtime, {
      ...ids,
      waitMs,
      signal: AbortSignal.any([context.signal, tools.stopping]),
      ...(onProgress === undefined ? {} : { onProgress }),
    });
    if (entered || got.status !== 'working') return got;
    return { ...got, next: `${tools.gate.refusal()}; ${got.next}` };
  } finally {
    if (entered) tools.gate.leave();
  }
}

const changesWork = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true } as const;
const reads = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

/** Registers the society's tools (docs/mcp-server.md) on `server`. */
export function registerSocietyTools(server: McpServer, runtime: Runtime, tools: SocietyToolsContext): void {
  const wrapping = { tracer: runtime.tracer, tools };
  registerWorkTools(server, runtime, wrapping);
  registerReadingTools(server, runtime, wrapping);
}

/** The tools that give the society work and wait for its answers. */
function registerWorkTools(server: McpServer, runtime: Runtime, wrapping: Wrapping): void {
  const { tools } = wrapping;
  server.registerTool(
    'submit_requirement',
    {
      title: 'Submit a requirement',
      description:
        "Give the society's root agent a requirement, starting a new session, and wait (up to waitSeconds) for its answer. Returns the answer, or the tool calls waiting for a person's approval, or the task id to wait on with await_answer.",
      inputSchema: SubmitArgsSchema,
      // The society's agents may use tools that reach outside it; nothing is destroyed by asking.
      annotations: changesWork,
    },
    guarded(wrapping, 'submit_requirement', async ({ text, waitSeconds }, context) => {
      const taskId = await runtime.submit(text);
      return outcome(runtime, tools, { taskId, sessionId: taskId }, waitSeconds, context);
    }),
  );
  server.registerTool(
    'continue_session',
    {
      title: 'Continue a session',
      description:
        'Send the next message of a session (its memory and context carry over) and wait (up to waitSeconds) for the answer, as submit_requirement does.',
      inputSchema: ContinueArgsSchema,
      annotations: changesWork,
    },
    guarded(wrapping, 'continue_session', async ({ sessionId, text, waitSeconds }, context) => {
      const taskId = await runtime.submit(text, { sessionId });
      return outcome(runtime, tools, { taskId, sessionId }, waitSeconds, context);
    }),
  );
  server.registerTool(
    'await_answer',
    {
      title: 'Wait for an answer',
      description: "Wait (up to waitSeconds) for the answer to a Task submitted before, or for its tool calls to wait for a person's approval.",
      inputSchema: AwaitArgsSchema,
      annotations: reads,
    },
    guarded(wrapping, 'await_answer', async ({ taskId, sessionId, waitSeconds }, context) =>
      outcome(runtime, tools, { taskId, sessionId: sessionId ?? taskId }, waitSeconds, context),
    ),
  );
}

/** The tools that read the society's work and decide its approvals. */
function registerReadingTools(server: McpServer, runtime: Runtime, wrapping: Wrapping): void {
  const { redactor } = wrapping.tools;
  server.registerTool(
    'read_messages',
    {
      title: "Read a Task's messages",
      description:
        "The messages of a session's task tree, oldest first, a page at a time: what reached the user, or (scope all) every Task, with its artifacts.",
      inputSchema: ReadMessagesArgsSchema,
      annotations: reads,
    },
    guarded(wrapping, 'read_messages', async ({ taskId, ...query }) => {
      const page = messagesOf(runtime, taskId, query);
      return { ...page, messages: page.messages.map((task) => redactor.task(task)) };
    }),
  );
  server.registerTool(
    'list_agents',
    {
      title: 'List agents',
      description: "The society's agents, oldest first, a page at a time: id, role, parent, state, queued Tasks and lanes.",
      inputSchema: ListAgentsArgsSchema,
      annotations: reads,
    },
    guarded(wrapping, 'list_agents', async (query) => {
      const page = runtime.agentPage(query);
      return { ...page, agents: page.agents.map(safeRoleNames(redactor)) };
    }),
  );
  server.registerTool(
    'list_approvals',
    {
      title: 'List approvals',
      description:
        "The tool calls waiting for a person's approval, oldest first: tool, arguments, why it waits, its annotations and the digest a decision may name.",
      inputSchema: ListApprovalsArgsSchema,
      // Waiting calls come and go as the society works: a second call may list others.
      annotations: { ...reads, idempotentHint: false },
    },
    guarded(wrapping, 'list_approvals', async ({ agentId }) => ({
      approvals: runtime.approvals(agentId === undefined ? {} : { agentId }).map((approval) => redactApproval(approval, redactor)),
    })),
  );
  server.registerTool(
    'decide_approval',
    {
      title: 'Decide an approval',
      description:
        'Approve, reject (the model reads your message) or edit (other arguments) a tool call waiting for approval. A call is decided once: a second decision is refused.',
      inputSchema: DecideArgsSchema,
      // An approved call may destroy and reach outside; deciding again changes nothing more (it is refused).
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
    },
    guarded(wrapping, 'decide_approval', async ({ id, decision }) =>
      redactApproval(await runtime.decide(id, { ...decision, by: decision.by ?? decidedOverMcp }), redactor),
    ),
  );
}
