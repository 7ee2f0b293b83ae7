import { randomUUID } from 'node:crypto';
import { type Artifact, type Message, type Part, Role, TaskState } from '@a2a-js/sdk';
import type { StoredArtifact } from '../org/index.js';
import type { TaskStatus } from '../task/index.js';

/** troupe's Task statuses are the A2A task states: one to one. */
const stateOf: Readonly<Record<TaskStatus, TaskState>> = {
  submitted: TaskState.TASK_STATE_SUBMITTED,
  working: TaskState.TASK_STATE_WORKING,
  'input-required': TaskState.TASK_STATE_INPUT_REQUIRED,
  completed: TaskState.TASK_STATE_COMPLETED,
  canceled: TaskState.TASK_STATE_CANCELED,
  failed: TaskState.TASK_STATE_FAILED,
  rejected: TaskState.TASK_STATE_REJECTED,
};

export function a2aState(status: TaskStatus): TaskState {
  return stateOf[status];
}

const statusOfState = new Map<TaskState, TaskStatus>(Object.entries(stateOf).map(([status, state]) => [state, status as TaskStatus]));

/** The troupe status of an A2A state; `auth-required` and unknown states count as `working` (the task goes on). */
export function troupeStatus(state: TaskState): TaskStatus {
  return statusOfState.get(state) ?? 'working';
}

/** States after which an A2A task takes nothing more. */
export const terminalStates: ReadonlySet<TaskState> = new Set([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_REJECTED,
]);

export const textPart = (text: string): Part => ({ content: { $case: 'text', value: text }, mediaType: 'text/plain', filename: '', metadata: undefined });

export const dataPart = (value: unknown): Part => ({ content: { $case: 'data', value }, mediaType: 'application/json', filename: '', metadata: undefined });

/** A message of the agent (or, with `role`, the user) in `contextId`, about `taskId` when it has one. */
export function message(parts: Part[], ids: { contextId: string; taskId?: string }, role: Role = Role.ROLE_AGENT): Message {
  return {
    messageId: randomUUID(),
    contextId: ids.contextId,
    taskId: ids.taskId ?? '',
    role,
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** The text parts of a message, joined by blank lines: what troupe's agents read. */
export function textOf(parts: readonly Part[]): string {
  return parts
    .flatMap((part) => (part.content?.$case === 'text' ? [part.content.value] : []))
    .join('\n\n')
    .trim();
}

/** The data parts of a message. */
export function dataOf(parts: readonly Part[]): unknown[] {
  return parts.flatMap((part) => (part.content?.$case === 'data' ? [part.content.value as unknown] : []));
}

const isJson = (mediaType: string): boolean => /^application\/(.+\+)?json\b/i.test(mediaType);

/**
 * A stored artifact as an A2A artifact of one part: JSON as a data part (an A2A client reads it as
 * structured data), other text as a text part, bytes as a file (raw) part, each with its media
 * type and name.
 */
export function a2aArtifact({ ref, content }: StoredArtifact): Artifact {
  let part: Part;
  if (typeof content !== 'string')
    part = { content: { $case: 'raw', value: Buffer.from(content) }, mediaType: ref.mediaType, filename: ref.name, metadata: undefined };
  else if (isJson(ref.mediaType)) part = { ...dataPart(parsedOr(content)), mediaType: ref.mediaType, filename: ref.name };
  else part = { ...textPart(content), mediaType: ref.mediaType, filename: ref.name };
  return { artifactId: ref.id, name: ref.name, description: '', parts: [part], metadata: undefined, extensions: [] };
}

function parsedOr(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
