import { EventBus, type EventBusOptions, type NatsTransportHandle, type NatsTransportOptions, connectNatsTransport } from '../../src/bus/index.js';
import { cleanupAfterEach } from './cleanupAfterEach.js';

export interface NatsBus {
  readonly bus: EventBus;
  readonly transport: NatsTransportHandle;
}

/** Connects buses to a NATS server for the test and closes them after it. */
export function natsBusesAfterEach(): (options: NatsTransportOptions, busOptions?: Omit<EventBusOptions, 'transport'>) => Promise<NatsBus> {
  const later = cleanupAfterEach();
  return async (options, busOptions = {}) => {
    const transport = await connectNatsTransport(options);
    const bus = new EventBus({ ...busOptions, transport });
    later(() => bus.close());
    return { bus, transport };
  };
}
