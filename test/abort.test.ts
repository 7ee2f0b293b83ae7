import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { onAbort } from '../src/abort.js';

describe('onAbort', () => {
  it('runs every registered listener once, in order, through one listener on the signal', () => {
    const controller = new AbortController();
    const calls: string[] = [];
    onAbort(controller.signal, () => calls.push('a'));
    const cancelB = onAbort(controller.signal, () => calls.push('b'));
    onAbort(controller.signal, () => calls.push('c'));
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    cancelB();

    controller.abort(new Error('stop'));
    controller.abort(new Error('again'));
    expect(calls).toEqual(['a', 'c']);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('counts the same function registered twice as two registrations', () => {
    const controller = new AbortController();
    let calls = 0;
    const listener = (): void => {
      calls++;
    };
    const cancelFirst = onAbort(controller.signal, listener);
    onAbort(controller.signal, listener);
    cancelFirst();
    controller.abort();
    expect(calls).toBe(1);
  });

  it('runs the listener at once on a signal that has already aborted, registering nothing', () => {
    const signal = AbortSignal.abort(new Error('gone'));
    let calls = 0;
    const cancel = onAbort(signal, () => calls++);
    expect(calls).toBe(1);
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
    cancel();
    expect(calls).toBe(1);
  });

  it('skips a listener that an earlier one cancelled during the abort', () => {
    const controller = new AbortController();
    const calls: string[] = [];
    let cancelSecond = (): void => undefined;
    onAbort(controller.signal, () => {
      calls.push('first');
      cancelSecond();
    });
    cancelSecond = onAbort(controller.signal, () => calls.push('second'));
    controller.abort();
    expect(calls).toEqual(['first']);
  });

  it('still runs the others when one throws, and rethrows that error uncaught', async () => {
    const controller = new AbortController();
    const calls: string[] = [];
    // The test runner's own handlers would report the expected error as a failure: set aside until it arrives.
    const runners = process.listeners('uncaughtException');
    process.removeAllListeners('uncaughtException');
    const uncaught = new Promise<unknown>((resolve) => {
      process.once('uncaughtException', (error) => {
        for (const handler of runners) process.on('uncaughtException', handler);
        resolve(error);
      });
    });
    onAbort(controller.signal, () => {
      throw new Error('listener failed');
    });
    onAbort(controller.signal, () => calls.push('after'));
    controller.abort();
    expect(calls).toEqual(['after']);
    expect(await uncaught).toMatchObject({ message: 'listener failed' });
  });

  it('starts a fresh listener for registrations after the cancelled ones left nothing', () => {
    const controller = new AbortController();
    const cancel = onAbort(controller.signal, () => undefined);
    cancel();
    let calls = 0;
    onAbort(controller.signal, () => calls++);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    controller.abort();
    expect(calls).toBe(1);
  });
});
