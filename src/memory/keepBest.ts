/** Puts `item` into `heap`, a min-heap under `less` (its least first) of at most `k`, when it is above the least. */
export function keepBest<T>(heap: T[], item: T, k: number, less: (a: T, b: T) => boolean): void {
  let at: number;
  if (heap.length < k) {
    heap.push(item);
    at = heap.length - 1;
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (!less(heap[at] as T, heap[parent] as T)) return;
      [heap[at], heap[parent]] = [heap[parent] as T, heap[at] as T];
      at = parent;
    }
    return;
  }
  if (!less(heap[0] as T, item)) return;
  heap[0] = item;
  at = 0;
  for (;;) {
    const [left, right] = [2 * at + 1, 2 * at + 2];
    let least = at;
    if (left < heap.length && less(heap[left] as T, heap[least] as T)) least = left;
    if (right < heap.length && less(heap[right] as T, heap[least] as T)) least = right;
    if (least === at) return;
    [heap[at], heap[least]] = [heap[least] as T, heap[at] as T];
    at = least;
  }
}
