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
    view.set('seq', 5, 'pinned');
    view.release('seq');
    expect(view.read('seq', () => 0)).toBe(5);
    expect(view.size).toBe(1);
  });

  it('keeps the most recently written `recent` entries after they committed, up to its limit', () => {
    const view = new InFlightView(2);
    const disk = (): number => -1;
    for (const key of ['a', 'b', 'c']) {
      view.set(key, 1, 'recent');
      view.release(key);
    }
    // `a` was written first and went when `c` came: read from disk again.
    expect([view.read('a', disk), view.read('b', disk), view.read('c', disk)]).toEqual([-1, 1, 1]);
    expect(view.size).toBe(2);
    // Written again, `b` is the newest: `d` pushes out `c`.
    view.set('b', 2, 'recent');
    expect(view.read('b', disk)).toBe(2);
    view.release('b');
    view.set('d', 1, 'recent');
    view.release('d');
    expect([view.read('b', disk), view.read('c', disk), view.read('d', disk)]).toEqual([2, -1, 1]);
    expect(view.size).toBe(2);
  });
});
