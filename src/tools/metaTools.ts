import { z } from 'zod';
import { AgentIdSchema, HandoffTargetsSchema, type JsonValue, TerminationModeSchema, taskText } from '../task/index.js';
import { compressContextTool } from './compressContextTool.js';
import { createPlanTool } from './createPlanTool.js';
import { graphTools } from './graphTools.js';
import { rememberTool, searchMemoryTool } from './memoryTools.js';
import { delegateTask, routeAndRecord, sendMessage } from './societyServices.js';
import { type Tool, defineTool, jsonResult } from './tool.js';

/** How long `delegate_task` waits for a child's answer unless the model says otherwise. */
const defaultDelegateTimeoutMs = 120_000;

const createRoleTool = defineTool({
  name: 'create_role',
  description: 'Create a role (a job description) that agents can be spawned with.',
  parameters: z.object({
    name: z.string().min(1).max(64).describe('Short role name, e.g. "poet"'),
    prompt: z.string().min(1).max(20_000).describe('System prompt for agents of this role'),
    description: z.string().min(1).max(1024).optional().describe('What agents of this role do and when to give them work (what delegate_task by role matches)'),
    handoffs: HandoffTargetsSchema.optional().describe(
      'Agents or roles (or "user") that agents of this role may hand a conversation over to; each becomes a transfer_to_<name> tool',
    ),
  }),
  annotations: { destructive: false, openWorld: false },
  execute: async (args, { agentId, society }) => jsonResult(await society.createRole({ ...args, createdBy: agentId })),
});

const spawnAgentTool = defineTool({
  name: 'spawn_agent',
  description: 'Spawn a new agent of an existing role as your child. Optionally give it a first task (not awaited).',
  parameters: z.object({
    role: z.string().min(1).describe('Role name or role id'),
    task: z.string().min(1).optional().describe('A first task to send to the new agent'),
  }),
  annotations: { destructive: false, openWorld: false },
  execute: async (args, { agentId, society, task, toolCallId }) => {
    const call = toolCallId === undefined ? {} : { call: { taskId: task.id, toolCallId } };
    const spawned = await society.spawn({ role: args.role, parent: agentId, parentTask: task, ...call });
    if (args.task !== undefined) sendMessage(society, { from: agentId, to: spawned.agentId, text: args.task, parentTask: task });
    return jsonResult(spawned);
  },
});

const delegateTaskTool = defineTool({
  name: 'delegate_task',
  description:
    'Send a task to another agent and wait for its result. Name the agent (agentId), or instead give a role name or a plain ' +
    'description of who should do it (role, e.g. "someone who can review TypeScript"): the best-fitting role is chosen, an idle ' +
    'agent of it reused or a new child spawned; when no role fits, nothing is sent and you are told why. A role served by a remote ' +
    'agent (named exactly) gets the work over the network.',
  parameters: z
    .object({
      agentId: AgentIdSchema.optional().describe('The agent to delegate to'),
      role: z.string().min(1).max(1000).optional().describe('Instead of agentId: a role name, or a plain description of who should do the task'),
      task: z.string().min(1).describe('What the agent should do'),
      timeoutSeconds: z.number().positive().max(3600).optional().describe('How long to wait, default 120'),
    })
    .refine((args) => (args.agentId === undefined) !== (args.role === undefined), { message: 'give exactly one of agentId and role' }),
  // The delegate's own timeout governs; the tool timeout must not cut it short.
  timeoutMs: 3_600_000 + 1_000,
  // The delegate may use any tool it has, so nothing narrower than the defaults can be promised.
  annotations: { readOnly: false, destructive: true, idempotent: false, openWorld: true },
  execute: async (args, context) => {
    const { agentId, society, task, signal, toolCallId, trace, remoteRoles } = context;
    // A role served outside the society (createRuntime({ remoteRoles })) takes the work itself, by its exact name.
    const remote = args.role === undefined ? undefined : remoteRoles?.get(args.role.trim());
    if (remote !== undefined) return remote.delegate(args.task, context, args.timeoutSeconds === undefined ? {} : { timeoutMs: args.timeoutSeconds * 1000 });
    let to = args.agentId;
    let routing: Record<string, JsonValue> = {};
    if (args.role !== undefined) {
      const call = toolCallId === undefined ? {} : { call: { taskId: task.id, toolCallId } };
      const routed = await routeAndRecord(society, { from: agentId, request: args.role, parentTask: task, signal, ...call });
      if (routed.agentId === null) {
        const message = `no role fits "${args.role}": ${routed.reason}; create a role for it or name an agent`;
        return { content: JSON.stringify({ error: message, code: 'no_route' }), isError: true, metadata: { code: 'no_route', routing: routed.decision } };
      }
      to = routed.agentId;
      routing = { routing: routed.decision };
    }
    const target = to ?? '';
    const reply = await delegateTask(society, {
      from: agentId,
      to: target,
      text: args.task,
      parentTask: task,
      timeoutMs: args.timeoutSeconds === undefined ? defaultDelegateTimeoutMs : args.timeoutSeconds * 1000,
      signal,
      metadata: routing,
      trace,
    });
    return jsonResult({
      ...routing,
      agentId: target,
      status: reply.status,
      result: reply.status === 'completed' ? taskText(reply) : null,
      error: reply.error === null ? null : reply.error.message,
    });
  },
});

const sendMessageTool = defineTool({
  name: 'send_message',
  description: 'Send a message to an agent or to "user" without waiting for an answer.',
  parameters: z.object({
    to: AgentIdSchema.describe('Recipient agent id, or "user"'),
    text: z.string().min(1),
  }),
  annotations: { destructive: false, openWorld: false },
  execute: (args, { agentId, society, task, trace }) => {
    const sent = sendMessage(society, { from: agentId, to: args.to, text: args.text, parentTask: task, trace });
    return Promise.resolve(jsonResult({ messageId: sent.id, to: args.to }));
  },
});

const terminateAgentTool = defineTool({
  name: 'terminate_agent',
  description:
    'Terminate one of your child agents (and its descendants) and free its resources. Only its parent may. ' +
    'mode "drain" (default) lets it finish the work it has queued first; "abort" cancels that work at once.',
  parameters: z.object({
    agentId: AgentIdSchema,
    reason: z.string().max(500).optional(),
    mode: TerminationModeSchema.default('drain'),
  }),
  // Asked again for an agent it already terminated, it answers as the first time and ends nothing more.
  annotations: { destructive: true, idempotent: true, openWorld: false },
  execute: async (args, { agentId, society, task }) => {
    // Asked again for an agent it already terminated (a resumed turn), it answers as the first time.
    const ended = await society.terminate({
      agentId: args.agentId,
      by: agentId,
      reason: args.reason ?? 'terminated by parent',
      mode: args.mode,
      parentTask: task,
    });
    return jsonResult({ ok: true, terminatedAgentId: args.agentId, mode: ended.mode });
  },
});

/** The tools by which agents build and run their society, plan, keep their own context short, remember, and keep a graph of their work and notes. */
export const metaTools: readonly Tool[] = [
  createRoleTool,
  spawnAgentTool,
  delegateTaskTool,
  sendMessageTool,
  terminateAgentTool,
  createPlanTool,
  compressContextTool,
  rememberTool,
  searchMemoryTool,
  ...graphTools,
];
