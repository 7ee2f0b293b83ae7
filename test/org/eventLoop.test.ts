import { describe, expect, it } from 'vitest';
import { makeTask, orgHarness } from '../support/orgStoreFixture.js';

// Issue 12: a durable write must not block the event loop for its commit and fsync (in the
// runtime, that would stall the model stream and every other agent for each step's write).

const { tempDir, openTestStore } = orgHarness();

/** Counts event-loop turns (setImmediate callbacks) until stopped. */
function ticker(): { ticks: () => number; stop: () => void } {
  let ticks = 0;
  let running = true;
  const tick = (): void => {
    ticks += 1;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  return { ticks: () => ticks, stop: () => (running = false) };
}

describe('org store: the event loop while writes commit', () => {
  it('keeps turning while durable writes commit one after another', async () => {
    const { store } = await openTestStore(await tempDir());
    const writes = 100;
    const loop = ticker();
    for (let i = 0; i < writes; i++) await store.appendInbox(makeTask({ id: `t${i}` }));
    loop.stop();
    console.info(`event loop test: ${loop.ticks()} turns during ${writes} durable writes`);
    // Committed on the main thread, each write takes one turn, whose commit and fsync block
    // the loop: about one tick per write. Off it, the loop turns while each fsync runs.
    expect(loop.ticks()).toBeGreaterThan(writes * 3);
  });
});
