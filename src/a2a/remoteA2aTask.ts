import type { Artifact as A2aArtifact, StreamResponse } from '@a2a-js/sdk';
import { type Artifact, type SocietyPort } from '../tools/index.js';
import { type Task, type TaskError, type TaskStatus, createTask, finalStatuses, parseTask } from '../task/index.js';
import { terminalStates, textOf, troupeStatus } from './a2aParts.js';

/** The local Task that stands for work given to a remote A2A agent: its updates go on the local bus as the remote's come in. */
export class DelegationTask {
  #task: Task;
  readonly #society: SocietyPort;

  constructor(society: SocietyPort, init: { from: string; to: string; about: Task; text: string; url: string }) {
    this.#society = society;
    this.#task = createTask(
      {
        from: init.from,
        to: init.to,
        action: 'a2a.delegate',
        parameters: { text: init.text, url: init.url },
        parentId: init.about.id,
        sessionId: init.about.sessionId,
      },
      { ids: society.ids, clock: society.clock },
    );
    society.bus.publish(this.#task);
  }

  get status(): TaskStatus {
    return this.#task.status;
  }

  /** The id of the remote's task, once it named it. */
  get remoteTaskId(): string | undefined {
    const id = this.#task.parameters['remoteTaskId'];
    return typeof id === 'string' ? id : undefined;
  }

  /** Publishes the Task again in `status` (with the remote's text as its result, or why it failed). */
  update(status: TaskStatus, said: { text?: string; remoteTaskId?: string; error?: TaskError } = {}): void {
    if (finalStatuses.has(this.#task.status)) return;
    const parameters = said.remoteTaskId === undefined ? this.#task.parameters : { ...this.#task.parameters, remoteTaskId: said.remoteTaskId };
    this.#task = parseTask({
      ...this.#task,
      status,
      parameters,
      result: said.text === undefined ? null : { text: said.text },
      error: said.error ?? null,
      createdAt: this.#society.clock.now(),
    });
    this.#society.bus.publish(this.#task);
  }
}

/** Where a remote task stands, as its stream has told so far. */
export interface RemoteProgress {
  taskId: string | undefined;
  status: TaskStatus;
  text: string;
  artifacts: Map<string, A2aArtifact>;
  /** Called once the remote has named its task (its id is in `taskId`). */
  named?: () => void;
}

/**
 * Reads a remote task's stream into `progress`, publishing each change of state on `delegation`.
 * Returns whether the task reached an end (a final state, `input-required`, or a plain message);
 * false when the stream ended before that (the connection dropped).
 */
export async function readRemote(stream: AsyncGenerator<StreamResponse>, progress: RemoteProgress, delegation: DelegationTask): Promise<boolean> {
  for await (const event of stream) {
    const payload = event.payload;
    if (payload === undefined) continue;
    if (payload.$case === 'message') {
      progress.text = textOf(payload.value.parts);
      progress.status = 'completed';
      return true;
    }
    if (payload.$case === 'artifactUpdate') {
      const { artifact } = payload.value;
      if (artifact !== undefined) progress.artifacts.set(artifact.artifactId, artifact);
      continue;
    }
    const status = payload.$case === 'task' ? payload.value.status : payload.value.status;
    if (payload.$case === 'task') {
      progress.taskId = payload.value.id;
      progress.named?.();
      for (const artifact of payload.value.artifacts) progress.artifacts.set(artifact.artifactId, artifact);
    }
    if (status === undefined) continue;
    progress.status = troupeStatus(status.state);
    if (status.message !== undefined) progress.text = textOf(status.message.parts);
    const said = progress.taskId === undefined ? { text: progress.text } : { text: progress.text, remoteTaskId: progress.taskId };
    if (!terminalStates.has(status.state) && progress.status !== 'input-required')
      delegation.update(progress.status === 'submitted' ? 'working' : progress.status, said);
    if (terminalStates.has(status.state) || progress.status === 'input-required') return true;
  }
  return false;
}

/** A remote artifact as a troupe one: text as text, a file's bytes as bytes, data as its JSON. */
export function localArtifacts(artifacts: Iterable<A2aArtifact>): Artifact[] {
  const out: Artifact[] = [];
  for (const artifact of artifacts) {
    for (const [index, part] of artifact.parts.entries()) {
      const name =
        part.filename !== '' ? part.filename : artifact.name !== '' ? `${artifact.name}${index === 0 ? '' : `-${index}`}` : `artifact-${out.length + 1}`;
      const content = part.content;
      if (content?.$case === 'text') out.push({ name, mediaType: part.mediaType || 'text/plain', content: content.value });
      else if (content?.$case === 'raw') out.push({ name, mediaType: part.mediaType || 'application/octet-stream', content: new Uint8Array(content.value) });
      else if (content?.$case === 'data') out.push({ name, mediaType: part.mediaType || 'application/json', content: JSON.stringify(content.value) });
    }
  }
  return out;
}
