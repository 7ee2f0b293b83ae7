import type { Api, Approval, Task } from './api.js';

/** What the dashboard does with the event stream's news. */
export interface StreamHandlers {
  readonly task: (task: Task) => void;
  readonly approval: (news: { readonly type: 'waiting' | 'decided'; readonly approval: Approval }) => void;
  /** Reload everything shown: the stream (re)opened after a gap, or the server said `reset`. */
  readonly resync: () => void;
  readonly status: (status: 'live' | 'reconnecting') => void;
}

/** How long to wait before opening a stream again once the browser has given one up. */
const reopenAfterMs = 2_000;

/**
 * `GET /api/events` for as long as the page is open. The browser's EventSource retries a dropped
 * connection by itself (every 2 s, as the server asks), but gives up for good on a reply that is
 * not a stream (a 503 while the server drains, a 401): then a new one is opened. Whatever was
 * missed in a gap (a restarted server's new run replays nothing of the old one) is reloaded.
 */
export function followEvents(api: Api, handlers: StreamHandlers): () => void {
  let source: EventSource | undefined;
  let gap = false;
  let timer: number | undefined;
  const open = (): void => {
    const current = new EventSource(api.eventsUrl());
    source = current;
    current.addEventListener('open', () => {
      handlers.status('live');
      if (gap) handlers.resync();
      gap = false;
    });
    current.addEventListener('task', (event) => handlers.task(JSON.parse((event as MessageEvent<string>).data) as Task));
    current.addEventListener('approval', (event) =>
      handlers.approval(JSON.parse((event as MessageEvent<string>).data) as Parameters<StreamHandlers['approval']>[0]),
    );
    current.addEventListener('reset', () => handlers.resync());
    current.addEventListener('error', () => {
      gap = true;
      handlers.status('reconnecting');
      if (current.readyState !== EventSource.CLOSED || source !== current) return;
      current.close();
      timer = window.setTimeout(open, reopenAfterMs);
    });
  };
  open();
  return () => {
    window.clearTimeout(timer);
    source?.close();
  };
}
