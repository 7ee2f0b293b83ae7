import type { Observable } from 'rxjs';
import { parseOrThrow } from '../../task/index.js';
import type { Transport } from '../transport.js';
import { type NatsTransportOptions, NatsTransportOptionsSchema } from './natsTransportOptions.js';

/** A transport over NATS, with what it adds to every transport. */
export interface NatsTransportHandle extends Transport {
  readonly society: string;
  /** Messages from the wire dropped: malformed, replayed work, or work over its sender's limit (warned of in one line per `dropWarningIntervalMs`). */
  readonly dropped: number;
  /** Bytes sent that the server has not yet confirmed, or held while the connection is down. */
  readonly pendingBytes: number;
  /** Whether the connection is up; `connection$` gives it now and at every change. */
  readonly connected: boolean;
  readonly connection$: Observable<boolean>;
  /** The largest Task message this transport sends, in bytes. */
  readonly maxPayloadBytes: number;
  /** Tasks the durable mailboxes' stream refused to keep (it was full); each logged, and work answered `mailbox_full`. */
  readonly refusedByStream: number;
}

/**
 * Connects a transport to NATS for one society. The NATS client is loaded here, on first use,
 * so `import 'troupe'` stays light for societies in one process.
 *
 * @example
 * const transport = await connectNatsTransport({ servers: 'nats://127.0.0.1:4222', society: 'demo' });
 * const rt = await createRuntime({ bus: new EventBus({ transport }) });
 */
export async function connectNatsTransport(options: NatsTransportOptions): Promise<NatsTransportHandle> {
  const { logger, clock, ...rest } = options;
  const settings = parseOrThrow(NatsTransportOptionsSchema, rest, 'nats');
  const { NatsTransport } = await import('./natsTransport.js');
  return NatsTransport.connect(settings, logger, clock);
}
