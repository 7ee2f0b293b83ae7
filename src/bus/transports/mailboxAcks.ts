import type { JsMsg } from '@nats-io/jetstream';
import { type Task, finalStatuses } from '../../task/index.js';
import { RecentIds } from './recentIds.js';

/** Answers recently given, per agent and Task: a redelivery of one of them is acknowledged, not run again. */
const answeredKept = 4096;

/**
 * The mailbox messages a host has taken but not acknowledged: work its agents are doing. Each
 * is acknowledged when the agent's final reply to it goes out, and meanwhile marked in progress
 * every third of `ackWaitMs`, so JetStream hands it to another host only once this one is gone.
 * How many there are is bounded by the server (`maxUnacknowledged` per mailbox).
 */
export class MailboxAcks {
  readonly #pending = new Map<string, JsMsg>();
  readonly #answered = new RecentIds(answeredKept);
  #heartbeat: ReturnType<typeof setInterval> | undefined;
  #everyMs: number;

  constructor(ackWaitMs: number) {
    this.#everyMs = Math.floor(ackWaitMs / 3);
  }

  /**
   * A mailbox waits `ackWaitMs` for its acknowledgements (set by the owner that opened it): when
   * that is shorter than this host's own setting, work is marked in progress often enough for it.
   */
  heed(ackWaitMs: number): void {
    const everyMs = Math.floor(ackWaitMs / 3);
    if (everyMs <= 0 || everyMs >= this.#everyMs) return;
    this.#everyMs = everyMs;
    if (this.#heartbeat === undefined) return;
    clearInterval(this.#heartbeat);
    this.#heartbeat = setInterval(() => this.#extend(), everyMs).unref();
  }

  /**
   * A mailbox message for `agentId` carrying `task`: whether to hand the Task to the bus. Work
   * (`awaitsAnswer`) is held until answered; a redelivery of work in progress here or answered
   * already is not handed over again; anything else is acknowledged at once.
   */
  taken(agentId: string, task: Task, msg: JsMsg, awaitsAnswer: boolean): boolean {
    if (!awaitsAnswer) {
      tell(msg, 'ack');
      return true;
    }
    const key = keyOf(agentId, task.id);
    if (this.#answered.has(key)) {
      tell(msg, 'ack');
      return false;
    }
    const inProgress = this.#pending.has(key);
    // The newest delivery is the one JetStream tracks: acknowledge that one.
    this.#pending.set(key, msg);
    this.#heartbeat ??= setInterval(() => this.#extend(), this.#everyMs).unref();
    return !inProgress;
  }

  /**
   * A Task going out: when it is an agent's final reply to work from its mailbox, that work is
   * acknowledged. Remembered either way, since the mailbox's copy of the work may come after the
   * answer (the agent took an earlier copy, through an observer's subscription).
   */
  sent(task: Task): void {
    if (!finalStatuses.has(task.status)) return;
    const key = keyOf(task.from, task.id);
    this.#answered.add(key);
    const msg = this.#pending.get(key);
    if (msg === undefined) return;
    tell(msg, 'ack');
    this.#pending.delete(key);
    this.#stopWhenIdle();
  }

  /** The agent left this host: its unanswered work goes back to its mailbox now, for its next host. */
  release(agentId: string): void {
    const prefix = keyOf(agentId, '');
    for (const [key, msg] of this.#pending) {
      if (!key.startsWith(prefix)) continue;
      tell(msg, 'nak');
      this.#pending.delete(key);
    }
    this.#stopWhenIdle();
  }

  /** Stops extending: what is unacknowledged goes to another host once `ackWaitMs` runs out. */
  close(): void {
    this.#pending.clear();
    this.#stopWhenIdle();
  }

  #extend(): void {
    for (const msg of this.#pending.values()) tell(msg, 'working');
  }

  #stopWhenIdle(): void {
    if (this.#pending.size > 0 || this.#heartbeat === undefined) return;
    clearInterval(this.#heartbeat);
    this.#heartbeat = undefined;
  }
}

/**
 * Tells JetStream what became of a message. On a connection that has closed meanwhile this
 * throws, and there is nothing to do: the server hands the message out again after `ackWaitMs`.
 */
function tell(msg: JsMsg, what: 'ack' | 'nak' | 'working'): void {
  try {
    msg[what]();
  } catch {
    // The connection is gone; see above.
  }
}

// A space never occurs in an agent or Task id, so one key cannot be read as another.
function keyOf(agentId: string, taskId: string): string {
  return `${agentId} ${taskId}`;
}
