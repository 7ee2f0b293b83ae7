/** A fixed-size ring of the most recent items; older ones are overwritten. */
export class DebugRing<T> {
  readonly #items: (T | undefined)[];
  #next = 0;
  #count = 0;

  constructor(readonly capacity: number) {
    this.#items = new Array<T | undefined>(Math.max(0, capacity));
  }

  push(item: T): void {
    if (this.capacity === 0) return;
    this.#items[this.#next] = item;
    this.#next = (this.#next + 1) % this.capacity;
    this.#count = Math.min(this.#count + 1, this.capacity);
  }

  items(): T[] {
    const out: T[] = [];
    const start = (this.#next - this.#count + this.capacity) % Math.max(1, this.capacity);
    for (let i = 0; i < this.#count; i++) {
      const item = this.#items[(start + i) % this.capacity];
      if (item !== undefined) out.push(item);
    }
    return out;
  }
}
