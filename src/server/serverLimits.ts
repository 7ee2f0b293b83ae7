import { z } from 'zod';
import { parseOrThrow } from '../task/index.js';

const KiB = 1024;
const MiB = 1024 * KiB;

/** A positive whole number: a count, bytes or milliseconds. */
const positive = () => z.number({ error: 'must be a number' }).int('must be a whole number').positive('must be > 0');

/**
 * Every resource a client can make the HTTP server hold, with its default: docs/http.md's
 * "Limits" table lists the same. One schema, so a bad value is refused naming the option.
 */
export const ServerLimitsSchema = z
  .object({
    /** Largest request body accepted; larger ones get a 413. */
    bodyLimitBytes: positive().default(MiB),
    /** Time a client has to send a request's headers; then it gets a 408 and is disconnected. */
    headersTimeoutMs: positive().default(10_000),
    /** Time a client has to send a whole request, headers and body; then a 408 and disconnected. */
    requestTimeoutMs: positive().default(30_000),
    /** After an early refusal (401, 413 …), how much of the unread body is read and thrown away before the connection is cut. */
    lingerBytes: positive().default(4 * MiB),
    /** Event streams open at once, over all clients. */
    maxEventStreams: positive().default(1000),
    /** Event streams open at once for one client: one token when auth is on, else one remote address. */
    maxEventStreamsPerClient: positive().default(100),
    /** Bytes one event stream may have sent but not yet delivered to a client; past it the client is cut off. */
    maxStreamBufferBytes: positive().default(4 * MiB),
    /** Bytes all event streams together may have waiting; past it the streams holding most are cut off first. */
    maxTotalStreamBufferBytes: positive().default(64 * MiB),
    /** Newest events kept for clients that reconnect with `Last-Event-ID`; one further back is told `event: reset`. */
    replayBufferEvents: positive().default(1000),
    /** MCP tool calls (`/mcp`) waiting for an answer at once; past it a call returns its task id at once instead of waiting. */
    maxMcpWaits: positive().default(100),
  })
  .refine((limits) => limits.headersTimeoutMs <= limits.requestTimeoutMs, {
    message: 'headersTimeoutMs must not exceed requestTimeoutMs (the headers are part of the request)',
    path: ['headersTimeoutMs'],
  });

export type ServerLimits = z.output<typeof ServerLimitsSchema>;
export type ServerLimitOptions = z.input<typeof ServerLimitsSchema>;

/** The limits given, each checked, with the defaults for the rest. */
export function resolveServerLimits(options: ServerLimitOptions): ServerLimits {
  return parseOrThrow(ServerLimitsSchema, options);
}

/**
 * How often Node checks connections against the two timeouts: a tenth of the shorter one, so
 * a timeout fires at most 10% late, but no more often than every 10 ms nor less than every second.
 */
export function connectionsCheckingIntervalMs(limits: ServerLimits): number {
  return Math.min(1000, Math.max(10, Math.floor(Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs) / 10)));
}
