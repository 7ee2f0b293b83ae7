import { z } from 'zod';
import { type ChatMessage, ChatMessageSchema, type Task } from '../../../task/index.js';

const ConversationSchema = z.array(ChatMessageSchema);

/**
 * The first steps of a turn on `task`: its prompt; for a Task handed over, the conversation it
 * came with, ending with the prompt (put last when the handoff's filter left it out), so the
 * target takes the session up where the agent before it left it.
 */
export function openingSteps(task: Task, prompt: ChatMessage): ChatMessage[] {
  if (task.metadata['handoff'] === undefined) return [prompt];
  const parsed = ConversationSchema.safeParse(task.parameters['conversation']);
  if (!parsed.success || parsed.data.length === 0) return [prompt];
  const steps = parsed.data;
  const at = steps.findLastIndex((message) => message.role === 'user');
  return steps[at]?.content === prompt.content ? steps : [...steps, prompt];
}
