import type { AttemptTimer } from './attemptTimer.js';

/**
 * A 200 that is not the event stream a streamed completion asked for: a web page (the base URL
 * points at a site or a UI, not the API), an empty body, or JSON from a server that ignored
 * `stream`. Read as an answer it would be an empty one, so it fails the call instead, and is not
 * retried: the same URL gives the same page.
 */
export class NotAStreamError extends Error {
  override readonly name = 'NotAStreamError';
}

const shownChars = 120;

/** Whether a content type is an event stream's. */
export function isEventStream(contentType: string | null): boolean {
  return contentType !== null && /^\s*text\/event-stream\b/i.test(contentType);
}

/**
 * Resolves when `response` is an event stream (`text/event-stream`); otherwise throws
 * NotAStreamError naming what came instead, with the start of the body (read within the
 * attempt's time: its timer cancels the read).
 */
export async function requireEventStream(response: Response, timer: AttemptTimer): Promise<void> {
  const contentType = response.headers.get('content-type');
  if (isEventStream(contentType)) return;
  const start = await firstWordsOf(response, timer);
  throw new NotAStreamError(
    `the server answered ${response.status} with content-type ${contentType ?? 'none'} where an event stream (text/event-stream) was asked for, ` +
      (start === '' ? 'and an empty body' : `starting "${start}"`),
  );
}

/** A stream that ended without one chunk: the server sent no answer at all. */
export function emptyStreamError(): NotAStreamError {
  return new NotAStreamError('the event stream ended without a single chunk');
}

/** The first characters of the body, on one line; only the first network read is waited for, then the body is closed. */
async function firstWordsOf(response: Response, timer: AttemptTimer): Promise<string> {
  const reader: ReadableStreamDefaultReader<Uint8Array> | undefined = response.body?.getReader();
  if (reader === undefined) return '';
  timer.onExpire = () => void reader.cancel().catch(() => undefined);
  try {
    const read = await reader.read();
    const text = read.done ? '' : new TextDecoder().decode(read.value.subarray(0, shownChars * 4));
    return text.replace(/\s+/g, ' ').trim().slice(0, shownChars);
  } catch {
    return '';
  } finally {
    void reader.cancel().catch(() => undefined);
  }
}
