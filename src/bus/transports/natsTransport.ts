import { randomBytes } from 'node:crypto';
import { type Msg, type NatsConnection, connect, headers } from '@nats-io/transport-node';
import { BehaviorSubject, type Observable, distinctUntilChanged } from 'rxjs';
import { TroupeError, describeError } from '../../errors.js';
import { type Logger, silentLogger } from '../../logger.js';
import { type Clock, systemClock } from '../../clock.js';
import { Actions, type Task, asksForWork, finalStatuses, replyTo } from '../../task/index.js';
import type { GivenWork, Interest, Transport } from '../transport.js';
import { subjectOf, subscriptionSubjectOf } from './natsSubjects.js';
import { connectFailure, connectOptionsOf } from './natsConnectOptions.js';
import { HeldMessages } from './heldMessages.js';
import { type MailboxWire, NatsMailboxes } from './natsMailboxes.js';
import { StoreReceipts } from './storeReceipts.js';
import type { NatsTransportSettings } from './natsTransportOptions.js';
import { RecentIds } from './recentIds.js';
import { ReplayedWork, workKeyOf } from './replayedWork.js';
import { UnconfirmedBytes } from './unconfirmedBytes.js';
import { decodeWireMessage, encodeWireMessage } from './wireMessage.js';
import { DroppedMessages } from './droppedMessages.js';
import { type ShareRefusal, SenderShares, senderOf } from './senderShares.js';

/** Copies of one message a connection may be handed arrive close together; this many ids recognise them. */
const recentIdsKept = 4096;

interface SharedSubscription {
  /** A core NATS subscription, or the reading of a durable mailbox. */
  readonly subscription: { unsubscribe(): void };
  holders: number;
}

/**
 * Carries a bus's Tasks over core NATS (at most once: a Task sent while no server holds a
 * subscription for it is gone). Each Task is one message on `subjectOf(task)`; each interest of
 * the bus is one NATS subscription, shared by every holder of that interest. The connection is
 * opened with `noEcho`, and a Task sent here is handed to this bus directly, so an agent talking
 * to another on the same node pays no round trip and sees the in-process ordering.
 */
export class NatsTransport implements Transport {
  readonly name = 'nats';
  readonly reachesOtherBuses = true;
  readonly #nc: NatsConnection;
  readonly #settings: NatsTransportSettings;
  readonly #logger: Logger;
  readonly #subscriptions = new Map<string, SharedSubscription>();
  readonly #recent = new RecentIds(recentIdsKept);
  readonly #unconfirmed: UnconfirmedBytes;
  readonly #held = new HeldMessages();
  readonly #connected = new BehaviorSubject(true);
  readonly #encoder = new TextEncoder();
  // Ids of this transport's sendings: unique per connection, short on the wire.
  readonly #sender = randomBytes(6).toString('base64url');
  #sent = 0;
  readonly #dropped: DroppedMessages;
  #deliver: ((task: Task, only?: 'target') => void) | undefined;
  #closed = false;
  readonly #mailboxes: NatsMailboxes | undefined;
  readonly #receipts: StoreReceipts | undefined;
  readonly #wire: MailboxWire = {
    read: (subject, payload) => this.#read(subject, payload),
    deliver: (id, task) => this.#deliverFromMailbox(id, task),
  };
  // Sendings whose Task reached an agent whose mailbox this bus holds, by hold: a copy from the mailbox is not handed to that copy of the agent again.
  readonly #reachedHeld = new RecentIds(recentIdsKept);
  // Work this bus was given or sent, by agent and Task id: the same work again is a replay.
  readonly #givenWork: ReplayedWork;
  readonly #shares: SenderShares;
  #refused = 0;

  private constructor(nc: NatsConnection, settings: NatsTransportSettings, logger: Logger, clock: Clock, mailboxes: NatsMailboxes | undefined) {
    this.#nc = nc;
    this.#settings = settings;
    this.#logger = logger;
    this.#dropped = new DroppedMessages(logger, clock, settings.dropWarningIntervalMs);
    this.#givenWork = new ReplayedWork(settings.replayWindowTasks, logger);
    this.#shares = new SenderShares(settings.maxWorkPerSender, settings.maxWorkFromWire);
    this.#unconfirmed = new UnconfirmedBytes(() => this.#nc.flush());
    this.#mailboxes = mailboxes;
    if (mailboxes !== undefined) {
      const prefix = `troupe.${settings.society}.receipts.${this.#sender}`;
      this.#receipts = new StoreReceipts(nc, prefix, (task, reason) => this.#refusedByStream(task, reason));
      mailboxes.whenGivenUp(this.#wire, (task, deliveries) => this.#givenUp(task, deliveries));
    }
    void this.#watchStatus();
  }

  /**
   * Connects to the server; refuses with `transport_unavailable`, naming the address, when none
   * answers or TLS fails, and with `unauthorized` when it refuses the credentials.
   */
  static async connect(settings: NatsTransportSettings, logger: Logger = silentLogger, clock: Clock = systemClock): Promise<NatsTransport> {
    const options = connectOptionsOf(settings);
    let nc: NatsConnection;
    try {
      nc = await connect(options);
    } catch (error) {
      throw connectFailure(settings, error);
    }
    const { durableMailboxes } = settings;
    if (durableMailboxes === undefined) return new NatsTransport(nc, settings, logger, clock, undefined);
    try {
      return new NatsTransport(nc, settings, logger, clock, await NatsMailboxes.connect(nc, settings.society, durableMailboxes, logger));
    } catch (error) {
      await nc.close();
      throw error;
    }
  }

  /** The society's durable mailboxes, with `durableMailboxes` (JetStream); none without. */
  get mailboxes(): NatsMailboxes | undefined {
    return this.#mailboxes;
  }

  /** Tasks the society's stream refused to keep (full), each logged and, if it asked for work, answered `mailbox_full`. */
  get refusedByStream(): number {
    return this.#refused;
  }

  /** The society whose subjects this transport uses. */
  get society(): string {
    return this.#settings.society;
  }

  /** Messages from the wire dropped: malformed (not troupe's, not valid Tasks), replayed work, or work over its sender's limit. */
  get dropped(): number {
    return this.#dropped.count;
  }

  /** Bytes sent that the server has not yet confirmed, or held while the connection is down (bounded by `maxPendingBytes`). */
  get pendingBytes(): number {
    return this.#unconfirmed.total + this.#held.bytes;
  }

  /** Whether the connection is up: false from a drop until the client is back on a server. */
  get connected(): boolean {
    return this.#connected.value;
  }

  /** The connection's state, now and at every change. */
  get connection$(): Observable<boolean> {
    return this.#connected.pipe(distinctUntilChanged());
  }

  /** The largest message this transport sends: `maxPayloadBytes`, or less when the server takes less. */
  get maxPayloadBytes(): number {
    return Math.min(this.#settings.maxPayloadBytes ?? Infinity, this.#nc.info?.max_payload ?? Infinity);
  }

  attach(deliver: (task: Task, only?: 'target') => void): void {
    this.#deliver = deliver;
  }

  send(task: Task): void {
    if (this.#closed) return;
    const data = this.#encoder.encode(encodeWireMessage(`${this.#sender}.${(this.#sent++).toString(36)}`, task));
    this.#refuseBeyondBounds(task, data.byteLength);
    const subject = subjectOf(task, this.#settings.society);
    // Published (or held) before it is delivered here, so a reply a local handler sends at once
    // can never reach another bus ahead of the Task it answers.
    if (this.#connected.value) this.#publish(subject, data, task);
    else if (this.#settings.whileDisconnected === 'wait') this.#held.hold(subject, data, task);
    else {
      throw new TroupeError('transport_unavailable', `task ${task.id} not sent: the connection to NATS is down (whileDisconnected: 'fail')`, {
        context: { taskId: task.id },
      });
    }
    if (asksForWork(task)) this.#givenWork.add(task);
    // The reply comes from the agent the work went to: its key is the work's.
    else if (finalStatuses.has(task.status)) this.#shares.answered(`${task.from} ${task.id}`);
    // After the reply is on the connection, so the work it answers is acknowledged after it.
    this.#mailboxes?.sent(task);
    this.#deliver?.(task);
  }

  consultGivenWork(record: GivenWork): () => void {
    return this.#givenWork.consult(record);
  }

  declare(interest: Interest): () => void {
    const subject = subscriptionSubjectOf(interest, this.#settings.society);
    if (this.#closed) return () => undefined;
    let shared = this.#subscriptions.get(subject);
    if (shared === undefined) {
      if (this.#subscriptions.size >= this.#settings.maxSubscriptions) {
        throw new TroupeError(
          'transport_full',
          `this bus already holds ${this.#settings.maxSubscriptions} NATS subscriptions (maxSubscriptions); refused one to ${subject}`,
          { context: { subject } },
        );
      }
      shared = { subscription: this.#subscribe(interest, subject), holders: 0 };
      this.#subscriptions.set(subject, shared);
    }
    shared.holders++;
    const held = shared;
    let withdrawn = false;
    return () => {
      if (withdrawn) return;
      withdrawn = true;
      held.holders--;
      if (held.holders > 0 || this.#subscriptions.get(subject) !== held) return;
      this.#subscriptions.delete(subject);
      if (!this.#closed) held.subscription.unsubscribe();
    };
  }

  /** Resolves once the server has everything sent and every subscription made before the call. */
  async flush(): Promise<void> {
    if (!this.#closed) await this.#nc.flush();
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#deliver = undefined;
    this.#subscriptions.clear();
    this.#mailboxes?.close();
    this.#receipts?.close();
    this.#dropped.close();
    if (this.#held.count > 0) this.#logger.warn({ tasks: this.#held.count }, 'NATS transport closed with Tasks held for a lost connection; they are not sent');
    this.#connected.complete();
    if (this.#nc.isClosed()) return;
    // Drain sends what is still buffered; a connection that cannot (it dropped meanwhile) is just closed.
    await this.#nc.drain().catch(() => this.#nc.close());
  }

  #refuseBeyondBounds(task: Task, bytes: number): void {
    const maxPayload = this.maxPayloadBytes;
    if (bytes > maxPayload) {
      throw new TroupeError(
        'task_too_large',
        `task ${task.id} is ${bytes} bytes on the wire, more than the ${maxPayload} bytes one NATS message may carry (the server's max_payload, or maxPayloadBytes)`,
        { context: { taskId: task.id, bytes, maxPayloadBytes: maxPayload } },
      );
    }
    const pending = this.pendingBytes;
    if (pending + bytes > this.#settings.maxPendingBytes) {
      throw new TroupeError(
        'transport_full',
        `task ${task.id} refused: ${pending} bytes already sent are not yet confirmed by the NATS server, or held while it is unreachable (maxPendingBytes ${this.#settings.maxPendingBytes})`,
        { context: { taskId: task.id, pendingBytes: pending } },
      );
    }
  }

  /** A core subscription for `subject`, or, for an agent whose durable mailbox this bus holds, the reading of that mailbox. */
  #subscribe(interest: Interest, subject: string): { unsubscribe(): void } {
    if ('target' in interest && this.#mailboxes?.holds(interest.target) === true) {
      return { unsubscribe: this.#mailboxes.bind(interest.target, this.#wire) };
    }
    // Which subscription handed a message over: a copy through another is not a second message.
    const via = {};
    return this.#nc.subscribe(subject, { callback: (error, msg) => this.#receive(error, msg, via) });
  }

  #receive(error: Error | null, msg: Msg, via: object): void {
    if (error !== null) {
      this.#logger.warn({ error: describeError(error) }, 'NATS subscription failed');
      return;
    }
    const arrived = this.#read(msg.subject, msg.string(), via);
    if (arrived !== undefined) this.#deliverOnce(arrived.id, arrived.task);
  }

  #read(subject: string, payload: string, via?: object): { id: string; task: Task } | undefined {
    const arrived = decodeWireMessage(subject, this.#settings.society, payload);
    if (arrived.ok) return arrived;
    this.#dropped.malformed(arrived.kind, subject, payload, arrived.reason, via);
    return undefined;
  }

  #deliverOnce(id: string, task: Task): void {
    if (!this.#recent.add(id)) return;
    if (this.#mailboxes?.holds(task.to) === true) this.#reachedHeld.add(`${this.#mailboxes.holdOf(task.to)} ${id}`);
    else if (!this.#admitted(id, task)) return;
    this.#handOver(task);
  }

  /**
   * Whether work from the wire goes to the bus. Work given here before (the same agent and Task
   * id, under any sending id), or that a store consulted says was given, is a replay, dropped so
   * it is not run twice (an agent's mailbox keeps its own count of what it answered, and JetStream
   * refuses a replay within its duplicate window). An `execute` Task over its sender's share, or
   * every sender's, is answered `failed` with `transport_full` on the agent's behalf; it is not
   * remembered as given, so it may be sent again. Only `execute` takes a share: every one is
   * answered, which gives it back; a message may never be.
   */
  #admitted(id: string, task: Task): boolean {
    if (!asksForWork(task)) return true;
    const key = workKeyOf(task);
    const rememberedBy = this.#givenWork.seenBefore(task);
    if (rememberedBy !== undefined) {
      const window = rememberedBy === 'window' ? { replayWindowTasks: this.#settings.replayWindowTasks } : {};
      this.#dropped.drop('replayed', { taskId: task.id, to: task.to, from: task.from, rememberedBy, ...window });
      return false;
    }
    if (task.action === Actions.execute && this.#subscriptions.has(`troupe.${this.#settings.society}.agent.${task.to}.>`)) {
      const sender = senderOf(id);
      const refusal = this.#shares.take(sender, key);
      if (refusal !== undefined) {
        this.#dropped.drop('sender_over_limit', { taskId: task.id, to: task.to, sender, limit: limitNameOf(refusal) });
        this.#answerOnBehalf(task, 'transport_full', this.#overShareMessage(task, sender, refusal));
        return false;
      }
    }
    this.#givenWork.add(task);
    return true;
  }

  #overShareMessage(task: Task, sender: string, refusal: ShareRefusal): string {
    const { maxWorkPerSender, maxWorkFromWire } = this.#settings;
    return refusal === 'sender'
      ? `task ${task.id} refused: sender ${sender} already has ${maxWorkPerSender} Tasks unanswered on this bus (maxWorkPerSender)`
      : `task ${task.id} refused: this bus already has ${maxWorkFromWire} Tasks from NATS unanswered (maxWorkFromWire)`;
  }

  /**
   * A Task from an agent's mailbox: handed to the agent unless a copy reached it already (through
   * an observer's subscription here); to the agent alone when only observers saw a copy, before
   * the agent was hosted here.
   */
  #deliverFromMailbox(id: string, task: Task): void {
    const reached = `${this.#mailboxes?.holdOf(task.to) ?? ''} ${id}`;
    if (this.#reachedHeld.has(reached)) return;
    this.#reachedHeld.add(reached);
    this.#handOver(task, this.#recent.add(id) ? undefined : 'target');
  }

  #handOver(task: Task, only?: 'target'): void {
    try {
      this.#deliver?.(task, only);
    } catch (thrown) {
      // The bus isolates its subscribers; this is a bug below it, kept from killing the connection's reader.
      this.#logger.error({ taskId: task.id, error: describeError(thrown) }, 'delivering a Task from NATS failed');
    }
  }

  #publish(subject: string, data: Uint8Array, task: Task): void {
    // With durable mailboxes every agent subject is the stream's: ask for its receipt, to hear a refusal.
    const reply = this.#receipts?.replySubjectFor(task);
    if (reply === undefined) this.#nc.publish(subject, data);
    else this.#nc.publish(subject, data, { reply, ...(asksForWork(task) ? { headers: messageIdOf(task) } : {}) });
    this.#unconfirmed.add(data.byteLength);
  }

  /** The stream would not keep `task` (it is full): logged, and work is answered `mailbox_full` on its receiver's behalf. */
  #refusedByStream(task: Task, reason: string): void {
    this.#refused++;
    this.#logger.warn({ taskId: task.id, to: task.to, action: task.action, reason }, 'the durable mailboxes refused a Task');
    const limits = this.#settings.durableMailboxes;
    const why = `${reason} (maxStoredTasks ${limits?.maxStoredTasks}, maxStoredBytes ${limits?.maxStoredBytes})`;
    this.#answerOnBehalf(task, 'mailbox_full', `agent "${task.to}"'s durable mailbox refused task ${task.id}: ${why}`);
  }

  /** JetStream gave up on `task` (its nodes never answered it): logged, and work is answered `agent_unreachable` on its receiver's behalf. */
  #givenUp(task: Task, deliveries: number): void {
    this.#logger.warn({ taskId: task.id, to: task.to, action: task.action, deliveries }, 'a durable mailbox gave up on a Task');
    this.#answerOnBehalf(task, 'agent_unreachable', `agent "${task.to}" never answered task ${task.id}: delivered ${deliveries} times (maxDeliveries)`);
  }

  #answerOnBehalf(task: Task, code: 'mailbox_full' | 'agent_unreachable' | 'transport_full', message: string): void {
    if (task.status !== 'submitted' || this.#closed) return;
    try {
      this.send(replyTo(task, { status: 'failed', error: { code, message } }, systemClock));
    } catch (error) {
      this.#logger.warn({ taskId: task.id, error: describeError(error) }, 'could not answer a Task on its receiver’s behalf');
    }
  }

  async #watchStatus(): Promise<void> {
    for await (const status of this.#nc.status()) {
      if (status.type === 'disconnect') {
        this.#logger.warn({ server: status.server }, 'NATS disconnected');
        this.#connected.next(false);
      } else if (status.type === 'reconnect') {
        this.#logger.warn({ server: status.server, held: this.#held.count }, 'NATS reconnected');
        // Held Tasks go first, in order, before anything sent from now on.
        this.#held.release((subject, data, task) => this.#publish(subject, data, task));
        this.#connected.next(true);
        this.#mailboxes?.reconnected();
      }
    }
  }
}

/** Work carries its agent and Task id as JetStream's message id, so the stream stores one copy of it within its duplicate window. */
function messageIdOf(task: Task): ReturnType<typeof headers> {
  const carried = headers();
  carried.set('Nats-Msg-Id', workKeyOf(task));
  return carried;
}

function limitNameOf(refusal: ShareRefusal): string {
  return refusal === 'sender' ? 'maxWorkPerSender' : 'maxWorkFromWire';
}
