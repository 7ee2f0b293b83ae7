import type { ChatRequest, ModelClient, ScriptReply } from '../../src/llm/index.js';

export type RoleStep = ScriptReply | ((request: ChatRequest) => ScriptReply);

/** The role of the agent making a request, read from its system prompt. */
export function roleOf(request: ChatRequest): string {
  const system = request.messages.find((message) => message.role === 'system');
  return /\(role ([^)]+)\)/.exec(system?.content ?? '')?.[1] ?? 'unknown';
}

/** A model whose calls go to the model of the calling agent's role, so one role's call may hang while another's are answered. */
export function modelByRole(models: Record<string, ModelClient>): ModelClient {
  const pick = (request: ChatRequest): ModelClient => {
    const model = models[roleOf(request)];
    if (model === undefined) throw new Error(`no scripted model for role ${roleOf(request)}`);
    return model;
  };
  return {
    name: 'by-role',
    scripted: true,
    chat: (request, options) => pick(request).chat(request, options),
    embed: () => Promise.reject(new Error('modelByRole: no embeddings')),
  };
}

/** The JSON of the most recent tool result in the request. */
export function lastToolResult(request: ChatRequest): Record<string, unknown> {
  const tool = [...request.messages].reverse().find((message) => message.role === 'tool');
  return tool === undefined ? {} : (JSON.parse(tool.content) as Record<string, unknown>);
}

/** Every tool result in the request, their contents joined: what a model that repeats its tools' output says. */
export function toolResultsText(request: ChatRequest): string {
  return request.messages
    .filter((message) => message.role === 'tool')
    .map((message) => message.content)
    .join(' ');
}

/**
 * One scripted reply function for a whole society: each request is answered with the next step
 * of the script of the requesting agent's role. Unused steps are reported by `remaining()`.
 */
export function scriptByRole(scripts: Record<string, RoleStep[]>): { reply: (request: ChatRequest) => ScriptReply; remaining: () => Record<string, number> } {
  const queues = new Map(Object.entries(scripts).map(([role, steps]) => [role, [...steps]]));
  return {
    reply: (request) => {
      const role = roleOf(request);
      const step = queues.get(role)?.shift();
      if (step === undefined) throw new Error(`no scripted step left for role ${role}`);
      return typeof step === 'function' ? step(request) : step;
    },
    remaining: () => Object.fromEntries([...queues].map(([role, steps]) => [role, steps.length])),
  };
}

/** A role that creates `child`'s role, spawns one, delegates `task` to it, terminates it and answers `answer`. */
function delegatingSteps(child: { name: string; prompt: string }, task: string, answer: string): RoleStep[] {
  return [
    { toolCalls: [{ name: 'create_role', arguments: child }] },
    { toolCalls: [{ name: 'spawn_agent', arguments: { role: child.name } }] },
    (request) => ({ toolCalls: [{ name: 'delegate_task', arguments: { agentId: lastToolResult(request)['agentId'], task } }] }),
    (request) => ({ toolCalls: [{ name: 'terminate_agent', arguments: { agentId: lastToolResult(request)['agentId'] } }] }),
    { text: answer },
  ];
}

/** root → manager → worker and back, every agent terminating the child it made. */
export function delegationChain(): Record<string, RoleStep[]> {
  return {
    root: delegatingSteps({ name: 'manager', prompt: 'You manage a worker.' }, 'get the number', 'The number is 42.<imp:0.9/>'),
    manager: delegatingSteps({ name: 'worker', prompt: 'You find numbers.' }, 'find the number', 'worker says 42'),
    worker: [{ text: '42' }],
  };
}
