import { createInspector } from '@statelyai/inspect';
import { stringify } from 'safe-stable-stringify';
import { WebSocket } from 'ws';
import type { InspectionEvent } from 'xstate';
import { TroupeError } from '../errors.js';
import type { Redactor } from '../task/index.js';
import { startInspectorRelay } from './inspectorRelay.js';

export interface InspectorConnection {
  readonly inspect: (event: InspectionEvent) => void;
  /** Sends what is buffered, then disconnects (and stops the local relay, if any). */
  close(): Promise<void>;
}

/**
 * Streams XState inspection events of every actor to a WebSocket inspector endpoint. Resolves
 * once connected, so no early event (the actors' creation) is dropped.
 */
export async function connectInspector(url: string, redactor: Redactor, onStop: () => Promise<void> | void = () => undefined): Promise<InspectorConnection> {
  const socket = new WebSocket(url);
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', (error) => reject(new TroupeError('invalid_input', `cannot reach the inspector at ${url}: ${error.message}`)));
  });
  socket.on('error', () => undefined);
  const inspector = createInspector({
    send: (event) => {
      // Snapshots carry every conversation: the configured secrets come out before they leave.
      if (socket.readyState === WebSocket.OPEN) socket.send(redactor.text(safeJson(event)));
    },
  });
  // createInspector defers every event until started.
  inspector.start();
  const observer = inspector.inspect;
  return {
    inspect: (event) => observer.next?.(event),
    close: async () => {
      // The inspector converts each event in a setTimeout(0); let those queued so far run first.
      await new Promise((r) => setTimeout(r, 5));
      for (let waited = 0; socket.bufferedAmount > 0 && waited < 2_000; waited += 20) await new Promise((r) => setTimeout(r, 20));
      await new Promise<void>((resolve) => {
        socket.once('close', () => resolve());
        socket.close();
        setTimeout(resolve, 500).unref();
      });
      inspector.stop();
      await onStop();
    },
  };
}

/** Starts the inspector relay on `port` (loopback only) and connects to it; closing the connection stops the relay. */
async function startLocalInspector(port: number, redactor: Redactor): Promise<InspectorConnection & { readonly pageUrl: string }> {
  const relay = await startInspectorRelay(port);
  try {
    const connection = await connectInspector(relay.socketUrl, redactor, () => relay.close());
    return { ...connection, pageUrl: relay.pageUrl };
  } catch (error) {
    await relay.close();
    throw error;
  }
}

function safeJson(value: unknown): string {
  return stringify(value) ?? 'null';
}

/** What `--inspect-ws <url>`, or `--inspect` and `--inspect-port <port>`, ask for; both absent: no inspector. */
export interface InspectFlags {
  /** Start the local Stately inspector relay on this port (0: any free one). */
  readonly inspectPort?: number;
  /** Send inspection events to this WebSocket inspector instead. */
  readonly inspectUrl?: string;
}

/** An inspector the flags asked for: `pageUrl` for the local relay (the page to open), absent for a remote one. */
export type OpenedInspector = InspectorConnection & { readonly pageUrl?: string };

/**
 * The inspector the flags ask for, connected before the runtime starts so no actor is missed;
 * undefined when they ask for none. It lives until `close`: as long as a run, or a service.
 */
export async function openInspector(flags: InspectFlags, redactor: Redactor): Promise<OpenedInspector | undefined> {
  if (flags.inspectUrl !== undefined) return connectInspector(flags.inspectUrl, redactor);
  if (flags.inspectPort === undefined) return undefined;
  return startLocalInspector(flags.inspectPort, redactor);
}
