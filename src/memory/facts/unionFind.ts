/** Disjoint sets over the numbers 0..n-1, with path halving and union by size: near-constant time per operation. */
export class UnionFind {
  readonly #parent: Int32Array;
  readonly #size: Int32Array;

  constructor(n: number) {
    this.#parent = Int32Array.from({ length: n }, (_, i) => i);
    this.#size = new Int32Array(n).fill(1);
  }

  find(x: number): number {
    let node = x;
    while (this.#parent[node] !== node) {
      const grandparent = this.#parent[this.#parent[node] ?? node] ?? node;
      this.#parent[node] = grandparent;
      node = grandparent;
    }
    return node;
  }

  union(a: number, b: number): void {
    let rootA = this.find(a);
    let rootB = this.find(b);
    if (rootA === rootB) return;
    if ((this.#size[rootA] ?? 0) < (this.#size[rootB] ?? 0)) [rootA, rootB] = [rootB, rootA];
    this.#parent[rootB] = rootA;
    this.#size[rootA] = (this.#size[rootA] ?? 0) + (this.#size[rootB] ?? 0);
  }

  /** The sets of two or more members, each in ascending order, ordered by their smallest member. */
  groups(): number[][] {
    const byRoot = new Map<number, number[]>();
    for (let i = 0; i < this.#parent.length; i++) {
      const root = this.find(i);
      const group = byRoot.get(root);
      if (group === undefined) byRoot.set(root, [i]);
      else group.push(i);
    }
    return [...byRoot.values()].filter((group) => group.length > 1);
  }
}
