import { createHash } from 'node:crypto';
import type { Clock } from '../../clock.js';
import { TroupeError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import {
  type ArtifactRecord,
  ArtifactRecordSchema,
  type ArtifactRef,
  type ArtifactTable,
  type ArtifactTask,
  ArtifactTaskSchema,
  type EndedTask,
} from './artifactRecords.js';
import { type ArtifactLimits, refusal } from './artifactLimits.js';

/** An artifact a tool call of the Task `taskId` produced, to be stored. */
export interface TaskArtifact {
  readonly name: string;
  readonly mediaType: string;
  readonly content: string | Uint8Array;
  readonly taskId: string;
  readonly sessionId: string;
}

/** A stored artifact: its description and its content, text as a string and bytes as bytes, as it was given. */
export interface StoredArtifact {
  readonly ref: ArtifactRef;
  readonly content: string | Uint8Array;
}

/**
 * The id of an artifact: 128 bits of the sha256 of its Task, name, media type and bytes. Addressed
 * by content within its Task, so a tool call run again (a turn resumed after a crash) stores
 * nothing twice, while two Tasks never share a record and each Task's artifacts are evicted alone.
 */
function artifactId(taskId: string, name: string, mediaType: string, bytes: Uint8Array): string {
  return createHash('sha256').update(`${taskId}\u0000${name}\u0000${mediaType}\u0000`).update(bytes).digest('hex').slice(0, 32);
}

/**
 * The artifacts tools produced, on an `ArtifactTable` (LMDB in the data dir, or memory), within
 * `ArtifactLimits`: bytes per artifact and artifacts per Task are refused past their limit; past
 * the store's bytes the artifacts of the Tasks that ended first are evicted (logged), and a new
 * artifact is refused only when no ended Task is left to evict. Writes go one at a time, so each
 * decides on the totals the one before left.
 */
export class ArtifactStore {
  readonly #table: ArtifactTable;
  readonly #limits: ArtifactLimits;
  readonly #logger: Logger;
  readonly #clock: Clock;
  readonly #staleAfterMs: number;
  #total = 0;
  #queue: Promise<unknown> = Promise.resolve();

  /**
   * `staleAfterMs`: a Task that never reached a final status (a turn that ended asking the user,
   * or one cut by a crash and not resumed) counts as ended once its first artifact is this old;
   * the runtime gives `maxTaskMs`, the longest a turn may take. Unset: never.
   */
  constructor(table: ArtifactTable, options: { limits: ArtifactLimits; logger: Logger; clock: Clock; staleAfterMs?: number }) {
    this.#table = table;
    this.#staleAfterMs = options.staleAfterMs ?? Number.POSITIVE_INFINITY;
    this.#limits = options.limits;
    this.#logger = options.logger;
    this.#clock = options.clock;
    for (const { key, value } of table.allTasks()) {
      const task = ArtifactTaskSchema.safeParse(value);
      if (task.success) this.#total += task.data.bytes;
      else this.#logger.error({ key, reason: task.error.issues[0]?.message }, 'artifact store: a Task record is damaged; its artifacts are not counted');
    }
  }

  get limits(): ArtifactLimits {
    return this.#limits;
  }

  /** Bytes of every artifact stored. */
  get totalBytes(): number {
    return this.#total;
  }

  /** Stores `artifact` and resolves with its reference; rejects with `artifact_limit` when a limit refuses it. */
  put(artifact: TaskArtifact): Promise<ArtifactRef> {
    return this.#serially(() => this.#put(artifact));
  }

  /** The description of artifact `id`, or undefined when none is stored; a damaged record throws `store_damaged` naming the id. */
  ref(id: string): ArtifactRef | undefined {
    const record = this.#record(id);
    if (record === undefined) return undefined;
    const { v: _v, text: _text, ...ref } = record;
    return ref;
  }

  /** Artifact `id` with its content, or undefined when none is stored; a damaged record throws `store_damaged` naming the id. */
  get(id: string): StoredArtifact | undefined {
    const record = this.#record(id);
    if (record === undefined) return undefined;
    const bytes = this.#table.content(id);
    if (bytes === undefined) throw damaged(id, 'its content is missing');
    if (bytes.byteLength !== record.size) throw damaged(id, `its content is ${bytes.byteLength} bytes, its record says ${record.size}`);
    const { v: _v, text, ...ref } = record;
    return { ref, content: text ? Buffer.from(bytes).toString('utf8') : bytes };
  }

  /** The artifacts of one session's Tasks, oldest first; a damaged one is left out and logged. */
  list(sessionId: string): ArtifactRef[] {
    const refs: ArtifactRef[] = [];
    for (const { key, value } of this.#table.sessionTasks(sessionId)) {
      const task = ArtifactTaskSchema.safeParse(value);
      if (!task.success) {
        this.#logger.error({ key, reason: task.error.issues[0]?.message }, 'artifact store: a Task record is damaged; its artifacts are not listed');
        continue;
      }
      for (const id of task.data.ids) {
        try {
          const ref = this.ref(id);
          if (ref !== undefined) refs.push(ref);
        } catch (error) {
          this.#logger.error({ artifactId: id, error: (error as Error).message }, 'artifact store: a damaged artifact is not listed');
        }
      }
    }
    return refs.sort((a, b) => a.createdAt - b.createdAt);
  }

  /** Marks the Task ended (it reached a final status): from now on its artifacts may be evicted. Does nothing for a Task without artifacts. */
  taskEnded(task: { readonly id: string; readonly sessionId: string }): Promise<void> {
    if (this.#table.task(task.sessionId, task.id) === undefined) return Promise.resolve();
    return this.#serially(async () => {
      const stored = this.#task(task.sessionId, task.id);
      if (stored === undefined || stored.endedAt !== null) return;
      const endedAt = this.#clock.now();
      await this.#table.change({ tasks: [{ ...stored, endedAt }], ended: [{ endedAt, taskId: task.id, sessionId: task.sessionId }] });
    });
  }

  /** Resolves once every write asked for so far has finished (what a shutdown waits for before the store closes). */
  idle(): Promise<void> {
    return this.#queue.then(() => undefined);
  }

  async #put(artifact: TaskArtifact): Promise<ArtifactRef> {
    const { name, mediaType, taskId, sessionId } = artifact;
    const text = typeof artifact.content === 'string';
    const bytes = typeof artifact.content === 'string' ? Buffer.from(artifact.content, 'utf8') : artifact.content;
    const size = bytes.byteLength;
    const limits = this.#limits;
    if (size > limits.maxArtifactBytes)
      throw refusal(`artifact "${name}" is ${size} bytes, past the limit of ${limits.maxArtifactBytes} bytes per artifact (maxArtifactBytes); not stored`);
    const id = artifactId(taskId, name, mediaType, bytes);
    const known = this.ref(id);
    if (known !== undefined) return known;
    const task = this.#task(sessionId, taskId) ?? { v: 1, taskId, sessionId, ids: [], bytes: 0, endedAt: null };
    if (task.ids.length >= limits.maxArtifactsPerTask) {
      throw refusal(`task ${taskId} already has ${task.ids.length} artifacts, the limit per Task (maxArtifactsPerTask); "${name}" not stored`);
    }
    const evicted = this.#evictionFor(size, taskId);
    if (evicted === undefined) {
      throw refusal(
        `the artifact store holds ${this.#total} of its ${limits.maxArtifactStoreBytes} bytes (maxArtifactStoreBytes) and no terminated Task's artifacts are left to evict; "${name}" (${size} bytes) not stored`,
      );
    }
    const record: ArtifactRecord = { v: 1, id, name, mediaType, size, taskId, sessionId, createdAt: this.#clock.now(), text };
    await this.#table.change({
      put: { record, content: bytes },
      tasks: [{ ...task, ids: [...task.ids, id], bytes: task.bytes + size }],
      removeIds: evicted.flatMap(({ task: gone }) => gone?.ids ?? []),
      removeTasks: evicted.flatMap(({ task: gone }) => (gone === undefined ? [] : [gone])),
      removeEnded: evicted.flatMap(({ entry }) => (entry === undefined ? [] : [entry])),
    });
    for (const { entry, task: gone } of evicted) {
      if (gone === undefined) continue;
      this.#total -= gone.bytes;
      this.#logger.info(
        { taskId: gone.taskId, sessionId: gone.sessionId, artifacts: gone.ids.length, bytes: gone.bytes, maxArtifactStoreBytes: limits.maxArtifactStoreBytes },
        entry === undefined
          ? 'artifact store: evicted the artifacts of a Task that never ended, older than a turn may last, to make room (maxArtifactStoreBytes)'
          : 'artifact store: evicted the artifacts of a terminated Task to make room (maxArtifactStoreBytes)',
      );
    }
    this.#total += size;
    const { v: _v, text: _text, ...ref } = record;
    return ref;
  }

  /**
   * The Tasks whose eviction makes room for `size` more bytes: the ended ones, earliest ended
   * first, then those that never ended but are stale (see `staleAfterMs`), oldest first;
   * undefined when even all of them would not.
   */
  #evictionFor(size: number, keep: string): Array<{ entry?: EndedTask; task: ArtifactTask | undefined }> | undefined {
    const evicted: Array<{ entry?: EndedTask; task: ArtifactTask | undefined }> = [];
    let over = this.#total + size - this.#limits.maxArtifactStoreBytes;
    if (over <= 0) return evicted;
    for (const entry of this.#table.endedTasks()) {
      if (entry.taskId === keep) continue;
      const task = this.#task(entry.sessionId, entry.taskId);
      evicted.push({ entry, task });
      over -= task?.bytes ?? 0;
      if (over <= 0) return evicted;
    }
    for (const task of this.#staleTasks(keep)) {
      evicted.push({ task });
      over -= task.bytes;
      if (over <= 0) return evicted;
    }
    return undefined;
  }

  /** The Tasks that never ended whose first artifact is older than `staleAfterMs`, oldest first: read only when the ended ones do not make room. */
  #staleTasks(keep: string): ArtifactTask[] {
    if (!Number.isFinite(this.#staleAfterMs)) return [];
    const before = this.#clock.now() - this.#staleAfterMs;
    const stale: { task: ArtifactTask; since: number }[] = [];
    for (const { value } of this.#table.allTasks()) {
      const task = ArtifactTaskSchema.safeParse(value);
      if (!task.success || task.data.endedAt !== null || task.data.taskId === keep) continue;
      const first = task.data.ids[0];
      const since = first === undefined ? 0 : this.#createdAt(first);
      if (since <= before) stale.push({ task: task.data, since });
    }
    return stale.sort((a, b) => a.since - b.since).map(({ task }) => task);
  }

  /** When artifact `id` was stored; 0 (the oldest) when its record is missing or damaged, so it goes first. */
  #createdAt(id: string): number {
    try {
      return this.#record(id)?.createdAt ?? 0;
    } catch {
      return 0;
    }
  }

  #record(id: string): ArtifactRecord | undefined {
    const value = this.#table.record(id);
    if (value === undefined) return undefined;
    const record = ArtifactRecordSchema.safeParse(value);
    if (!record.success) throw damaged(id, `${record.error.issues[0]?.path.join('.') ?? ''}: ${record.error.issues[0]?.message ?? 'invalid'}`);
    if (record.data.id !== id) throw damaged(id, `it is stored under another id (${record.data.id})`);
    return record.data;
  }

  #task(sessionId: string, taskId: string): ArtifactTask | undefined {
    const value = this.#table.task(sessionId, taskId);
    if (value === undefined) return undefined;
    const task = ArtifactTaskSchema.safeParse(value);
    if (task.success) return task.data;
    throw new TroupeError(
      'store_damaged',
      `artifact store: the record of task ${taskId}'s artifacts is damaged (${task.error.issues[0]?.message ?? 'invalid'})`,
    );
  }

  #serially<T>(work: () => Promise<T>): Promise<T> {
    const next = this.#queue.then(work);
    this.#queue = next.catch(() => undefined);
    return next;
  }
}

function damaged(id: string, why: string): TroupeError {
  return new TroupeError('store_damaged', `artifact ${id} is damaged in the store: ${why}`, { context: { artifactId: id } });
}
