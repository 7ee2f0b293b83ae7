/**
 * The last `capacity` ids seen, oldest forgotten first: enough to recognise the extra copies
 * NATS hands a connection whose subscriptions overlap, which arrive right behind the first,
 * while holding a fixed amount of memory however long the transport runs.
 */
export class RecentIds {
  readonly #ids = new Set<string>();
  readonly #order: string[];
  #next = 0;

  constructor(readonly capacity: number) {
    this.#order = new Array<string>(capacity).fill('');
  }

  has(id: string): boolean {
    return this.#ids.has(id);
  }

  /** Remembers `id`; false when it was already remembered (a copy). */
  add(id: string): boolean {
    if (this.#ids.has(id)) return false;
    const oldest = this.#order[this.#next];
    if (oldest !== undefined && oldest !== '') this.#ids.delete(oldest);
    this.#order[this.#next] = id;
    this.#next = (this.#next + 1) % this.capacity;
    this.#ids.add(id);
    return true;
  }
}
