import {
  AckPolicy,
  type ConsumerConfig,
  type ConsumerMessages,
  DeliverPolicy,
  DiscardPolicy,
  type JetStreamClient,
  JetStreamApiError,
  type JetStreamManager,
  type JsMsg,
  RetentionPolicy,
  StorageType,
  jetstream,
  jetstreamManager,
} from '@nats-io/jetstream';
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import { TroupeError, describeError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import type { Task } from '../../task/index.js';
import type { DurableMailboxes } from '../transport.js';
import { MailboxAcks } from './mailboxAcks.js';
import { OwedRemovals } from './owedRemovals.js';
import type { DurableMailboxSettings } from './natsTransportOptions.js';

/** JetStream's code for a stream that exists with another configuration: it is updated instead. */
const streamExistsOtherwise = 10058;
const consumerNotFound = 10014;
const consumerPrefix = 'mailbox-';

/** JetStream counts durations in nanoseconds. */
const nanos = (ms: number): number => ms * 1_000_000;

/** How a mailbox hands what it reads to its transport, which checks it as any message from the wire. */
export interface MailboxWire {
  /** The Task a mailbox message carries, with its sending's id; undefined when it is malformed (the transport logs and counts it). */
  read(subject: string, payload: string): { readonly id: string; readonly task: Task } | undefined;
  /** Hands the Task to the bus, unless a copy of this sending was handed over already. */
  deliver(id: string, task: Task): void;
}

/**
 * Durable mailboxes on JetStream: one stream per society over every agent subject, with
 * interest retention (a Task is kept only while some agent's mailbox wants it, so Tasks to
 * agents without one cost the server a write and nothing more), and one durable pull consumer
 * per mailbox, filtered on its agent's subjects. Bounded by the stream's limits (`discard:
 * new`: a full stream refuses the Task, and its sender hears of it) and each consumer's
 * `max_ack_pending` and `max_deliver`.
 */
export class NatsMailboxes implements DurableMailboxes {
  readonly #held = new Map<string, (task: Task) => boolean>();
  readonly #bound = new Map<string, () => void>();
  readonly #acks: MailboxAcks;
  readonly #stream: string;
  #closed = false;
  #holds = 0;
  readonly #holdNumbers = new Map<string, number>();
  #givenUp: { readonly wire: MailboxWire; readonly hear: (task: Task, deliveries: number) => void } | undefined;
  #advisories: Subscription | undefined;
  readonly #owed: OwedRemovals;

  private constructor(
    private readonly nc: NatsConnection,
    private readonly jsm: JetStreamManager,
    private readonly js: JetStreamClient,
    private readonly society: string,
    private readonly settings: DurableMailboxSettings,
    private readonly logger: Logger,
  ) {
    this.#stream = streamNameOf(society);
    this.#acks = new MailboxAcks(settings.ackWaitMs);
    this.#owed = new OwedRemovals((agentId) => this.#delete(agentId), logger);
  }

  /**
   * Finds or creates the society's stream (updating its limits to these settings); refuses with
   * `transport_unavailable` when the server has no JetStream.
   */
  static async connect(nc: NatsConnection, society: string, settings: DurableMailboxSettings, logger: Logger): Promise<NatsMailboxes> {
    let jsm: JetStreamManager;
    try {
      jsm = await jetstreamManager(nc);
    } catch (error) {
      throw new TroupeError(
        'transport_unavailable',
        `durable mailboxes need JetStream, which the NATS server does not offer (run it with -js): ${describeError(error)}`,
        { cause: error },
      );
    }
    const config = {
      name: streamNameOf(society),
      subjects: [`troupe.${society}.agent.*.action.>`],
      retention: RetentionPolicy.Interest,
      storage: StorageType.File,
      discard: DiscardPolicy.New,
      max_msgs: settings.maxStoredTasks,
      max_bytes: settings.maxStoredBytes,
      max_age: nanos(settings.maxAgeMs),
      duplicate_window: nanos(Math.min(settings.duplicateWindowMs, settings.maxAgeMs)),
    };
    try {
      await jsm.streams.add(config);
    } catch (error) {
      if (!(error instanceof JetStreamApiError && error.code === streamExistsOtherwise)) throw error;
      await jsm.streams.update(config.name, config);
    }
    return new NatsMailboxes(nc, jsm, jetstream(nc), society, settings, logger);
  }

  /**
   * How long one pull for a mailbox's Tasks stays open at the server. A host that dies leaves its
   * open pulls behind until they expire, and JetStream may hand them the dead host's own Tasks
   * again (each a delivery, counted against `maxDeliveries`): so they last no longer than the
   * wait for an acknowledgement, and a Task reaches a live host within about two `ackWaitMs`.
   */
  get #pullExpiresMs(): number {
    return Math.max(1_000, Math.min(this.settings.ackWaitMs, 30_000));
  }

  /**
   * Where a Task goes that JetStream gave up on (delivered `maxDeliveries` times, never
   * answered): the process that opens mailboxes (the owner) hears of each, once, and the Task
   * leaves the stream. `wire` reads it as any message from the wire.
   */
  whenGivenUp(wire: MailboxWire, givenUp: (task: Task, deliveries: number) => void): void {
    this.#givenUp = { wire, hear: givenUp };
  }

  async open(agentId: string): Promise<void> {
    this.#owed.forget(agentId);
    this.#watchGivenUp();
    const config: Partial<ConsumerConfig> = {
      durable_name: consumerPrefix + agentId,
      filter_subject: `troupe.${this.society}.agent.${agentId}.action.>`,
      ack_policy: AckPolicy.Explicit,
      ack_wait: nanos(this.settings.ackWaitMs),
      max_ack_pending: this.settings.maxUnacknowledged,
      max_deliver: this.settings.maxDeliveries,
      deliver_policy: DeliverPolicy.All,
    };
    await this.jsm.consumers.add(this.#stream, config);
  }

  /**
   * Deletes the mailbox; one that cannot be deleted now (NATS unreachable, JetStream not ready
   * after a restart) is owed: deleted once the connection is back, so a terminated agent's
   * mailbox never keeps Tasks no one will read.
   */
  remove(agentId: string): Promise<void> {
    return this.#owed.remove(agentId);
  }

  /** Mailboxes owed a removal, not deleted yet. */
  get owedRemovals(): number {
    return this.#owed.count;
  }

  /** Resolves once no removal is owed. */
  removalsSettled(): Promise<void> {
    return this.#owed.settled();
  }

  /** The connection is back: owed removals are made now. */
  reconnected(): void {
    if (!this.#closed) this.#owed.retry();
  }

  async #delete(agentId: string): Promise<void> {
    try {
      await this.jsm.consumers.delete(this.#stream, consumerPrefix + agentId);
    } catch (error) {
      if (!(error instanceof JetStreamApiError && error.code === consumerNotFound)) throw error;
    }
  }

  async removeAll(): Promise<number> {
    let removed = 0;
    for await (const consumer of this.jsm.consumers.list(this.#stream)) {
      if (!consumer.name.startsWith(consumerPrefix)) continue;
      await this.jsm.consumers.delete(this.#stream, consumer.name);
      removed++;
    }
    return removed;
  }

  hold(agentId: string, awaitsAnswer: (task: Task) => boolean): () => void {
    this.#held.set(agentId, awaitsAnswer);
    this.#holdNumbers.set(agentId, ++this.#holds);
    return () => {
      if (this.#held.get(agentId) !== awaitsAnswer) return;
      this.#held.delete(agentId);
      this.#holdNumbers.delete(agentId);
      // Stop reading first: work handed back while this host still pulls could come straight back here.
      this.#bound.get(agentId)?.();
      this.#acks.release(agentId);
    };
  }

  /** Whether this bus's interest in `agentId` is served from its mailbox. */
  holds(agentId: string): boolean {
    return this.#held.has(agentId);
  }

  /**
   * Which hold of `agentId` is current, as a token: what reached one copy of the agent did not
   * reach the copy a later hold serves (the agent moved away and back, a new start).
   */
  holdOf(agentId: string): string {
    return `${agentId}@${this.#holdNumbers.get(agentId) ?? 0}`;
  }

  /**
   * Starts reading `agentId`'s mailbox into the bus; the returned function stops. Reading starts
   * once the consumer is found (a round trip), so the interest is in effect a moment after.
   */
  bind(agentId: string, wire: MailboxWire): () => void {
    let messages: ConsumerMessages | undefined;
    let stopped = false;
    void this.js.consumers
      .get(this.#stream, consumerPrefix + agentId)
      .then(async (consumer) => {
        // The owner that opened the mailbox set its wait: work here is marked in progress within it.
        const { ack_wait: ackWaitNanos } = (await consumer.info(true)).config;
        if (ackWaitNanos !== undefined) this.#acks.heed(ackWaitNanos / 1_000_000);
        return consumer.consume({ callback: (msg) => this.#take(agentId, msg, wire), expires: this.#pullExpiresMs });
      })
      .then((reading) => {
        messages = reading;
        if (stopped) closeQuietly(reading);
      })
      .catch((error: unknown) => this.logger.error({ agentId, error: describeError(error) }, 'cannot read a durable mailbox'));
    const stop = (): void => {
      stopped = true;
      if (messages !== undefined) closeQuietly(messages);
      if (this.#bound.get(agentId) === stop) this.#bound.delete(agentId);
    };
    this.#bound.set(agentId, stop);
    return stop;
  }

  /** A Task this transport sends: an agent's final reply acknowledges the work it answers. */
  sent(task: Task): void {
    this.#acks.sent(task);
  }

  /** Stops reading every mailbox; unacknowledged work goes to another host once its `ackWaitMs` runs out. */
  close(): void {
    this.#closed = true;
    this.#owed.close();
    this.#advisories?.unsubscribe();
    for (const stop of [...this.#bound.values()]) stop();
    this.#acks.close();
  }

  /** Listens, once, for JetStream's word that a mailbox gave up on a Task. */
  #watchGivenUp(): void {
    if (this.#advisories !== undefined || this.#givenUp === undefined) return;
    this.#advisories = this.nc.subscribe(`$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.${this.#stream}.*`, {
      callback: (error, msg) => {
        if (error === null) void this.#gaveUp(msg.string());
      },
    });
  }

  async #gaveUp(advisory: string): Promise<void> {
    try {
      const { stream_seq: seq, deliveries } = JSON.parse(advisory) as { stream_seq?: unknown; deliveries?: unknown };
      if (typeof seq !== 'number') return;
      const stored = await this.jsm.streams.getMessage(this.#stream, { seq });
      // Out of the stream, so it waits for no one any more.
      await this.jsm.streams.deleteMessage(this.#stream, seq);
      const arrived = stored === null ? undefined : this.#givenUp?.wire.read(stored.subject, stored.string());
      if (arrived !== undefined) this.#givenUp?.hear(arrived.task, typeof deliveries === 'number' ? deliveries : this.settings.maxDeliveries);
    } catch (error) {
      this.logger.warn({ error: describeError(error) }, 'could not read a Task JetStream gave up on');
    }
  }

  #take(agentId: string, msg: JsMsg, wire: MailboxWire): void {
    // Closing (the connection drains): what still arrives is left to expire, for the next host.
    if (this.#closed) return;
    const arrived = wire.read(msg.subject, msg.string());
    if (arrived === undefined) {
      // Malformed for good: never delivered again.
      msg.term();
      return;
    }
    const awaitsAnswer = this.#held.get(agentId);
    if (awaitsAnswer === undefined) {
      // Released meanwhile: the Task stays for the agent's next host.
      msg.nak();
      return;
    }
    if (this.#acks.taken(agentId, arrived.task, msg, awaitsAnswer(arrived.task))) wire.deliver(arrived.id, arrived.task);
  }
}

/** Stops reading a mailbox; on a connection already closed there is nothing left to stop. */
function closeQuietly(messages: ConsumerMessages): void {
  messages.close().catch(() => undefined);
}

/** The society's stream: its name holds only the society's own alphabet. */
function streamNameOf(society: string): string {
  return `troupe-${society}`;
}
