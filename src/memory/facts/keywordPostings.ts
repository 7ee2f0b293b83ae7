/**
 * One term's postings in the keyword index: the slots of the texts that hold it and its count in
 * each, in typed arrays a search walks without touching a Map or a string (a term most texts hold
 * has tens of thousands). A removed text's entry stays until half the entries are such (its slot
 * is never given again before the index renumbers: see FactKeywordIndex), then they are dropped.
 * Slots only grow as texts come, so the entries stay in slot order and a text's count is found by
 * binary search.
 */
export class KeywordPostings {
  slots = new Int32Array(4);
  counts = new Int32Array(4);
  /** Entries in the arrays, removed texts' included. */
  size = 0;
  /** Entries of texts still held: the term's document frequency. */
  live = 0;
  /** The most times a text held the term (an upper bound: a removal does not lower it). */
  maxCount = 0;

  add(slot: number, count: number): void {
    if (this.size === this.slots.length) {
      this.slots = grown(this.slots, this.size * 2);
      this.counts = grown(this.counts, this.size * 2);
    }
    this.slots[this.size] = slot;
    this.counts[this.size] = count;
    this.size++;
    this.live++;
    if (count > this.maxCount) this.maxCount = count;
  }

  /** The term's count in the text of `slot`; 0 when it has none. */
  countOf(slot: number): number {
    let [low, high] = [0, this.size];
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((this.slots[middle] as number) < slot) low = middle + 1;
      else high = middle;
    }
    return low < this.size && this.slots[low] === slot ? (this.counts[low] as number) : 0;
  }

  /** One of its texts is removed; `held(slot)` says which slots still are. */
  removed(held: (slot: number) => boolean): void {
    this.live--;
    if (this.live * 2 >= this.size) return;
    let kept = 0;
    for (let i = 0; i < this.size; i++) {
      const slot = this.slots[i] as number;
      if (!held(slot)) continue;
      this.slots[kept] = slot;
      this.counts[kept] = this.counts[i] as number;
      kept++;
    }
    this.size = kept;
  }
}

function grown(array: Int32Array, length: number): Int32Array<ArrayBuffer> {
  const bigger = new Int32Array(length);
  bigger.set(array);
  return bigger;
}
