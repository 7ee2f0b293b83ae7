import { describe, expect, it } from 'vitest';
import { InFlightView } from '../../src/org/inFlight.js';

describe('InFlightView', () => {
  it('answers from the latest write in flight, and from disk once every write of the key committed', () => {
    const view = new InFlightView();
    const disk = (): number => 0;
    view.set('k', 1);
    view.set('k', 2);
    expect(view.read('k', disk)).toBe(2);
    view.release('k');
    // One write of `k` is still in flight: its value stands.
    expect(view.read('k', disk)).toBe(2);
    view.release('k');
    expect(view.read('k', disk)).toBe(0);
    expect(view.size).toBe(0);
  });

  it('keeps a pinned entry after its writes committed', () => {
    const view = new InFlightView();
    view.set('seq', 5, true);
    view.release('seq');
    expect(view.read('seq', () => 0)).toBe(5);
    expect(view.size).toBe(1);
  });
});
