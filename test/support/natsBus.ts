import { type NatsConnection, connect } from '@nats-io/transport-node';
import {
  type DurableMailboxes,
  EventBus,
  type EventBusOptions,
  type NatsTransportHandle,
  type NatsTransportOptions,
  connectNatsTransport,
} from '../../src/bus/index.js';
import { afterAll, beforeAll, describe, inject } from 'vitest';
import { cleanupAfterEach } from './cleanupAfterEach.js';
import { NatsServer, type NatsServerConfig, type NatsServerOptions } from './natsServer.js';

export interface NatsBus {
  readonly bus: EventBus;
  readonly transport: NatsTransportHandle;
}

/**
 * `describe` for tests that start a nats-server: they skip when none is on PATH (the global setup,
 * `optionalDependencies.ts`, says so once a run, and fails the run instead where CI requires it).
 */
export function describeWithNatsServer(name: string, tests: () => void): void {
  describe.skipIf(!inject('natsServerOnPath'))(name, tests);
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

/** Starts a nats-server for the test and stops it after, whatever the test's outcome. */
export function natsServerAfterEach(): (config?: NatsServerConfig, options?: NatsServerOptions) => Promise<NatsServer> {
  const later = cleanupAfterEach();
  return async (config, options) => {
    const server = await NatsServer.start(config, options);
    later(() => server.dispose());
    return server;
  };
}

/** One nats-server for the whole test file, started before its first test and stopped after its last; call the result for it. */
export function natsServerForFile(config?: NatsServerConfig): () => NatsServer {
  let server: NatsServer | undefined;
  beforeAll(async () => {
    server = await NatsServer.start(config);
  });
  afterAll(() => server?.dispose());
  return () => {
    if (server === undefined) throw new Error('the nats-server of this file has not started yet');
    return server;
  };
}

/** A plain NATS client (a peer that is not troupe) on the file's server, connected before its first test and closed after its last. */
export function rawNatsClientForFile(server: () => NatsServer): () => NatsConnection {
  let nc: NatsConnection | undefined;
  beforeAll(async () => {
    nc = await connect({ servers: server().url });
  });
  afterAll(() => nc?.close());
  return () => {
    if (nc === undefined) throw new Error('the NATS client of this file has not connected yet');
    return nc;
  };
}

/** The durable mailboxes of a bus connected with `durableMailboxes`. */
export function mailboxesOf(bus: NatsBus): DurableMailboxes {
  const { mailboxes } = bus.transport;
  if (mailboxes === undefined) throw new Error('this transport has no durable mailboxes');
  return mailboxes;
}
