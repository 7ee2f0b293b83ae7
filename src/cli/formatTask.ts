import { Actions, type JsonValue, type Task, taskText } from '../task/index.js';

/** Shortens text to one line of at most `max` characters. */
export function oneLine(text: string, max = 96): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/** One readable line per Task: `from → to  action [status]  content`. */
export function formatTask(task: Task): string {
  const route = `${task.from} → ${task.to}`;
  const status = task.status === 'submitted' ? '' : ` [${task.status}]`;
  return `${route.padEnd(22)} ${task.action}${status}  ${oneLine(contentOf(task))}`.trimEnd();
}

function field(task: Task, name: string): string {
  const value = task.parameters[name];
  return typeof value === 'string' ? value : JSON.stringify(value ?? null);
}

function contentOf(task: Task): string {
  switch (task.action) {
    case Actions.spawned:
      return `${field(task, 'agentId')} as ${field(task, 'role')}`;
    case Actions.terminated:
      return field(task, 'agentId');
    case Actions.toolCall:
      return `${field(task, 'tool')} ${field(task, 'arguments')}`;
    case Actions.toolResult:
      return toolResultOf(task);
    default:
      if (task.error !== null) return `${task.error.code}: ${task.error.message}`;
      if (task.status === 'working') return '';
      return taskText(task);
  }
}

/** A tool result observation: the tool, then each artifact it stored (`id name (media type, size)`) and each refused. */
function shown(value: JsonValue | undefined): string {
  return typeof value === 'string' ? value : JSON.stringify(value ?? null);
}

function toolResultOf(task: Task): string {
  const parts = [field(task, 'tool')];
  const artifacts = task.parameters['artifacts'];
  if (Array.isArray(artifacts)) {
    for (const artifact of artifacts) {
      if (artifact === null || typeof artifact !== 'object' || Array.isArray(artifact)) continue;
      parts.push(`artifact ${shown(artifact['id'])} ${shown(artifact['name'])} (${shown(artifact['mediaType'])}, ${shown(artifact['size'])} bytes)`);
    }
  }
  const refused = task.parameters['refused'];
  if (Array.isArray(refused)) parts.push(...refused.map((reason) => `refused: ${shown(reason)}`));
  return parts.join('; ');
}
