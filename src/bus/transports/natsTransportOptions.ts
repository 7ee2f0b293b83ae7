import { z } from 'zod';
import type { Clock } from '../../clock.js';
import type { Logger } from '../../logger.js';
import { SocietyNameSchema } from './natsSubjects.js';

const MiB = 1024 * 1024;

const positive = z.number().int().positive();

/**
 * Agents' mailboxes kept by JetStream until their host acknowledges each Task (see
 * `DurableMailboxes`); every bound has a default (docs/distributed.md, "Durable mailboxes").
 */
export const DurableMailboxOptionsSchema = z
  .object({
    /** How long a host may hold a Task unacknowledged before JetStream gives it to the next host; a live host extends it while the agent works. */
    ackWaitMs: positive.min(1_000).default(30_000),
    /** Tasks the society's stream keeps at once, over every mailbox; one more is refused (`mailbox_full`). */
    maxStoredTasks: positive.default(1_000_000),
    /** Bytes the stream keeps at once; one more Task is refused (`mailbox_full`). */
    maxStoredBytes: positive.default(1024 * MiB),
    /** How long a Task may wait in a mailbox before JetStream drops it. */
    maxAgeMs: positive.default(7 * 24 * 3600_000),
    /** Tasks one mailbox hands its host before the host acknowledges any (JetStream's `max_ack_pending`). */
    maxUnacknowledged: positive.default(1_000),
    /** Deliveries of one Task before JetStream gives up on it (a Task that kills every host it reaches). */
    maxDeliveries: positive.default(5),
    /** How long the server remembers each work Task sent into a mailbox (JetStream's duplicate window, by `Nats-Msg-Id`): a replay within it is not stored again. */
    duplicateWindowMs: positive.min(1_000).default(120_000),
  })
  .strict();
export type DurableMailboxSettings = z.output<typeof DurableMailboxOptionsSchema>;

/** How a NATS transport connects and what it may hold; every bound has a default (docs/distributed.md, "The NATS transport"). */
export const NatsTransportOptionsSchema = z
  .object({
    /** The server(s) to connect to, as `nats://host:port` URLs. */
    servers: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]),
    /** The society this bus belongs to: its subjects are `troupe.<society>.…`, so societies on one server never meet. */
    society: SocietyNameSchema.default('default'),
    /** The connection's name on the server (`nats-server` monitoring shows it). */
    name: z.string().min(1).max(128).optional(),
    /** Bytes sent but not yet confirmed by the server; one more send is refused with `transport_full`. */
    maxPendingBytes: z
      .number()
      .int()
      .positive()
      .default(8 * MiB),
    /** The largest Task message sent; the server's own `max_payload` applies too, whichever is smaller. */
    maxPayloadBytes: z.number().int().positive().optional(),
    /** Distinct NATS subscriptions (one per agent with a mailbox here, one per action pattern observed). */
    maxSubscriptions: z.number().int().positive().default(10_000),
    /** Work Tasks (an agent and a Task id) this bus remembers having been given, newest kept: a replay of one of them is dropped, not run again. */
    replayWindowTasks: z.number().int().positive().default(100_000),
    /**
     * Work (a new `execute` Task) from one sender on the wire that agents on this bus have not
     * answered yet; one more is answered `failed` with `transport_full`. A sender is the
     * connection a message says it came from (its sending id), so one flooding peer cannot crowd
     * out the others.
     */
    maxWorkPerSender: z.number().int().positive().default(1_000),
    /** Such work from every sender together; one more is refused the same way. */
    maxWorkFromWire: z.number().int().positive().default(10_000),
    /** Messages dropped from the wire (malformed, replayed, over a sender's limit) are warned of in one line per this interval: the first at once, the rest counted. */
    dropWarningIntervalMs: z.number().int().positive().default(10_000),
    /** How long the first connection may take before `connectNatsTransport` gives up. */
    connectTimeoutMs: z.number().int().positive().default(5_000),
    /** The wait between two attempts to reconnect a lost connection (attempts never stop). */
    reconnectWaitMs: z.number().int().positive().default(2_000),
    /**
     * A Task sent while the connection is down: `wait` holds it (within `maxPendingBytes`) and
     * sends it once the connection is back; `fail` refuses it at once with `transport_unavailable`.
     */
    whileDisconnected: z.enum(['wait', 'fail']).default('wait'),
    /**
     * Keep agents' mailboxes in JetStream (the server must run with it: `nats-server -js`), so
     * the Tasks of an agent whose node dies wait for the node that takes the agent over.
     * `true` for the defaults.
     */
    durableMailboxes: z
      .union([z.literal(true), DurableMailboxOptionsSchema])
      .optional()
      .transform((value) => (value === true ? DurableMailboxOptionsSchema.parse({}) : value)),
    /** A token the server requires (its `authorization { token }`). A secret: never logged. */
    token: z.string().min(1).optional(),
    /** A user and password the server requires (its `authorization { users }`); both or neither. The password is a secret. */
    user: z.string().min(1).optional(),
    password: z.string().min(1).optional(),
    /**
     * Connect over TLS: `caFile` is the PEM of the authority that signed the server's certificate
     * (the system's authorities without it); `certFile` and `keyFile`, both or neither, are this
     * client's certificate and key, for a server that verifies its clients (mutual TLS).
     */
    tls: z
      .object({ caFile: z.string().min(1).optional(), certFile: z.string().min(1).optional(), keyFile: z.string().min(1).optional() })
      .strict()
      .refine((tls) => (tls.certFile === undefined) === (tls.keyFile === undefined), { message: 'certFile and keyFile go together', path: ['keyFile'] })
      .optional(),
  })
  .strict()
  .refine((options) => (options.user === undefined) === (options.password === undefined), { message: 'user and password go together', path: ['password'] })
  .refine((options) => options.token === undefined || options.user === undefined, {
    message: 'give a token or a user and password, not both',
    path: ['token'],
  });

export type NatsTransportOptions = z.input<typeof NatsTransportOptionsSchema> & {
  /** Where dropped messages and connection changes are logged; nowhere when absent. */
  readonly logger?: Logger;
  /** The clock of the warnings' intervals; the system's when absent. */
  readonly clock?: Clock;
};

export type NatsTransportSettings = z.output<typeof NatsTransportOptionsSchema>;
