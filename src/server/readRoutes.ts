import type { FastifyInstance } from 'fastify';
import type { Runtime } from '../runtime/index.js';
import { type Redactor, type Task, parseOrThrow } from '../task/index.js';
import { HttpError } from './httpErrors.js';
import { responseSchema } from './responseSchema.js';
import {
  AgentIdParamsSchema,
  AgentSchema,
  AgentsQuerySchema,
  AgentsReplySchema,
  CancelTaskBodySchema,
  type MessagesQuery,
  type MessagesReply,
  MessagesQuerySchema,
  TaskIdParamsSchema,
  TerminateAgentQuerySchema,
} from './schemas.js';

const toUser = (task: Task): boolean => task.to === 'user';

/** What tells two messages apart: a Task keeps its id through its statuses, so id alone does not. */
const messageKey = (task: Task): string => `${task.id}\u0000${task.status}\u0000${task.createdAt}`;

/**
 * Everything that reached the user for `taskId`, in delivery order: the durable log, then what
 * the inbox already has and the log not yet (the log is written behind the delivery, so the
 * newest answers may still be on their way to disk).
 */
function receivedByUser(log: readonly Task[], inbox: readonly Task[], taskId: string): Task[] {
  const logged = log.filter(toUser);
  const unmatched = new Map<string, number>();
  for (const task of logged) unmatched.set(messageKey(task), (unmatched.get(messageKey(task)) ?? 0) + 1);
  const pending = inbox.filter((task) => {
    if (task.sessionId !== taskId) return false;
    const count = unmatched.get(messageKey(task)) ?? 0;
    if (count === 0) return true;
    unmatched.set(messageKey(task), count - 1);
    return false;
  });
  return [...logged, ...pending];
}

/**
 * The messages of one task tree. With an org store they come from its durable log, so they
 * survive restarts, topped up with the inbox's newest; a memory-only runtime answers from the
 * user's inbox alone (bounded by its `inboxLimit`), where an unknown task is just empty.
 */
export function messagesOf(runtime: Runtime, taskId: string, query: MessagesQuery): MessagesReply {
  const log = runtime.messageLog(taskId);
  const page = (tasks: readonly Task[], source: 'store' | 'memory'): MessagesReply => ({
    taskId,
    total: tasks.length,
    offset: query.offset,
    messages: tasks.slice(query.offset, query.offset + query.limit),
    artifacts: runtime.artifacts(taskId),
    source,
  });
  if (log === undefined) {
    if (query.scope === 'all') throw new HttpError('invalid_input', 'scope=all needs an org store (run with a data dir)', { field: 'scope' });
    return page(
      runtime.inbox().filter((task) => task.sessionId === taskId),
      'memory',
    );
  }
  // The user's own message is logged before it is sent, so a known task never has an empty log.
  if (log.length === 0) throw new HttpError('unknown_task', `no task "${taskId}"`, { field: 'taskId' });
  return page(query.scope === 'all' ? log : receivedByUser(log, runtime.inbox(), taskId), 'store');
}

/** The agent as it is, or a copy with its role's name redacted; each name is redacted once a page, however many agents share it. */
export function safeRoleNames(redactor: Redactor): <View extends { readonly roleName: string }>(view: View) => View {
  const names = new Map<string, string>();
  return (view) => {
    let name = names.get(view.roleName);
    if (name === undefined) names.set(view.roleName, (name = redactor.text(view.roleName)));
    return name === view.roleName ? view : { ...view, roleName: name };
  };
}

const agentsReply = responseSchema(AgentsReplySchema);
const agentReply = responseSchema(AgentSchema);

/** `GET /api/messages/:taskId`, `/api/agents`, `/api/agents/:id` and `/api/roles`; `DELETE /api/agents/:id`; `POST /api/tasks/:taskId/cancel`. */
export function registerReadRoutes(app: FastifyInstance, runtime: Runtime, redactor: Redactor): void {
  app.get('/api/messages/:taskId', async (request, reply) => {
    const { taskId } = parseOrThrow(TaskIdParamsSchema, request.params);
    const page = messagesOf(runtime, taskId, parseOrThrow(MessagesQuerySchema, request.query));
    const body = JSON.stringify({ ...page, messages: page.messages.map((task) => redactor.task(task)) });
    // Redacted again as written, ids included, as the event stream writes each Task: a client may
    // have named its session (and so every Task's `sessionId`, and the id asked for) with a secret.
    return reply.type('application/json; charset=utf-8').send(redactor.json(body));
  });

  // The serializer compiled from the reply schema picks each agent's fields: no copy per agent,
  // but for one whose role's name (free text a model wrote) carries a secret.
  app.get('/api/agents', { schema: { response: { 200: agentsReply } } }, async (request) => {
    const page = runtime.agentPage(parseOrThrow(AgentsQuerySchema, request.query));
    const safe = safeRoleNames(redactor);
    return { total: page.total, offset: page.offset, agents: page.agents.map(safe), source: page.source };
  });

  app.get('/api/agents/:id', { schema: { response: { 200: agentReply } } }, async (request) => {
    const { id } = parseOrThrow(AgentIdParamsSchema, request.params);
    const view = runtime.agent(id);
    if (view === undefined) throw new HttpError('unknown_agent', `no agent "${id}"`, { field: 'id' });
    return safeRoleNames(redactor)(view);
  });

  // The user's door to the organisation's tree: it may terminate what the society lets `user` (see `rt.terminateAsUser`).
  app.delete('/api/agents/:id', async (request) => {
    const { id } = parseOrThrow(AgentIdParamsSchema, request.params);
    const { mode, reason } = parseOrThrow(TerminateAgentQuerySchema, request.query);
    const ended = await runtime.terminateAsUser(id, reason === undefined ? { mode } : { mode, reason });
    return { agentId: id, terminated: true, mode: ended.mode };
  });

  // The user takes back work: the agent holding the Task stops its turn on it (rt.cancel).
  app.post('/api/tasks/:taskId/cancel', async (request) => {
    const { taskId } = parseOrThrow(TaskIdParamsSchema, request.params);
    const { reason } = parseOrThrow(CancelTaskBodySchema, request.body ?? {});
    if (!(await runtime.cancel(taskId, reason === undefined ? {} : { reason })))
      throw new HttpError('unknown_task', `no agent is working on task "${taskId}" (unknown, answered already, or held on another node)`, { field: 'taskId' });
    return { taskId, canceled: true };
  });

  app.get('/api/roles', async () => ({
    roles: runtime.roles().map((role) => ({
      id: role.id,
      name: redactor.text(role.name),
      prompt: redactor.text(role.prompt),
      createdBy: role.createdBy,
      createdAt: role.createdAt,
      ...(role.handoffs === undefined ? {} : { handoffs: role.handoffs.map((target) => redactor.text(target)) }),
    })),
  }));
}
