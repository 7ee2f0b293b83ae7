import type { AgentRecord, Role } from '../../../org/index.js';

/** The system prompt every session's context starts with. */
export function systemPrompt(record: AgentRecord, role: Role): string {
  const origin =
    record.parentAgentId === null
      ? 'You answer the user directly.'
      : `Your parent agent is ${record.parentAgentId}; your final answer goes back to whoever sent you the task.`;
  return `${role.prompt}\n\nYou are agent ${record.id} (role ${role.name}) in a troupe society. ${origin}`;
}
