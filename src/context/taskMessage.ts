import { Actions, type ChatMessage, type Task, taskAsPrompt, taskText } from '../task/index.js';

/**
 * How a remembered Task reads to the agent whose memory holds it. Requests the agent received
 * read as the user speaking to it (`taskAsPrompt`, as a turn's prompt does); its own replies as
 * its own words; what it asked of others as its own words too, with a header naming whom; a reply
 * it received as the user's side again, saying who answered; notices (`agent.*`) and notes to
 * itself (a plan's steps) as system messages. So a remembered exchange alternates user and
 * assistant as the turn that made it did:
 *
 * ```
 * user       [from user · task t1 · execute]\nwrite a haiku
 * assistant  [to poet-1 · task t2 · execute]\nwrite a haiku
 * user       [reply from poet-1 · task t2 · completed]\nRain on the roof…
 * assistant  Rain on the roof…
 * ```
 */

/** Which side of a Task the agent was on: it received it, sent it, or sent it to itself. */
export type Perspective = 'received' | 'sent' | 'self';

/** Why a remembered Task has no message: a progress update, a streamed fragment, or nothing to do with the agent. */
export type Unshown = 'progress' | 'not_addressed';

/** The agent's side of `task`, or why the Task is not shown at all. */
export function perspectiveOf(task: Task, agentId: string): Perspective | Unshown {
  // Progress updates and streamed fragments carry no content of their own (memory keeps neither).
  if (task.status === 'working' || task.action === Actions.thinking) return 'progress';
  if (task.from === agentId) return task.to === agentId ? 'self' : 'sent';
  return task.to === agentId ? 'received' : 'not_addressed';
}

/** True for a request the agent received from someone else: where an exchange starts. */
export function isReceivedRequest(task: Task, agentId: string): boolean {
  return task.status === 'submitted' && task.to === agentId && task.from !== agentId && !isNotice(task);
}

function isNotice(task: Task): boolean {
  return task.action.startsWith('agent.');
}

/** What a reply says: its result, else its error, else only its status. */
function replyText(task: Task): string {
  // An answer's result is `{ text }` (or any JSON): taskText reads the text out, as the user sees it.
  if (task.result !== null) return taskText(task);
  if (task.error !== null) return `${task.error.code}: ${task.error.message}`;
  return `(${task.status}, no result)`;
}

// A Task is frozen, so the message it becomes from one side never changes: made once per side, and
// since the message is then the same object every build, the token counter's identity cache holds.
const made: Readonly<Record<Perspective, WeakMap<Task, ChatMessage>>> = { received: new WeakMap(), sent: new WeakMap(), self: new WeakMap() };

/** The message `task` becomes, seen from `perspective` (the same object every time). */
export function taskMessage(task: Task, perspective: Perspective): ChatMessage {
  const cache = made[perspective];
  let message = cache.get(task);
  if (message === undefined) {
    message = Object.freeze(render(task, perspective));
    cache.set(task, message);
  }
  return message;
}

function render(task: Task, perspective: Perspective): ChatMessage {
  if (perspective === 'self') return { role: 'system', content: `[note to self · task ${task.id} · ${task.action}]\n${taskText(task)}` };
  if (isNotice(task)) return { role: 'system', content: `[${task.action} from ${task.from} to ${task.to}]\n${taskText(task)}` };
  const request = task.status === 'submitted';
  if (perspective === 'received') {
    return request
      ? { role: 'user', content: taskAsPrompt(task) }
      : { role: 'user', content: `[reply from ${task.from} · task ${task.id} · ${task.status}]\n${replyText(task)}` };
  }
  return request
    ? { role: 'assistant', content: `[to ${task.to} · task ${task.id} · ${task.action}]\n${taskText(task)}`, toolCalls: [] }
    : { role: 'assistant', content: replyText(task), toolCalls: [] };
}
