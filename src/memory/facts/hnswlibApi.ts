/**
 * The part of hnswlib-node's API troupe uses, declared here rather than imported: hnswlib-node is
 * an optional dependency, and where it did not build (no C++ compiler) npm leaves it out, its own
 * declarations with it, and troupe must still compile. A test checks these against the package's
 * declarations wherever it is installed.
 */
export interface HierarchicalNSW {
  initIndex(options: { maxElements: number; m?: number; efConstruction?: number; randomSeed?: number; allowReplaceDeleted?: boolean }): void;
  readIndex(filename: string, allowReplaceDeleted?: boolean): Promise<boolean>;
  writeIndex(filename: string): Promise<boolean>;
  resizeIndex(newMaxElements: number): void;
  addPoint(point: number[], label: number, replaceDeleted?: boolean): void;
  markDelete(label: number): void;
  searchKnn(queryPoint: number[], numNeighbors: number, filter?: (label: number) => boolean): { distances: number[]; neighbors: number[] };
  setEf(ef: number): void;
  getMaxElements(): number;
  getCurrentCount(): number;
  getPoint(label: number): number[];
}

/** hnswlib-node's exports troupe uses. */
export interface Hnswlib {
  readonly HierarchicalNSW: new (spaceName: 'l2' | 'ip' | 'cosine', numDimensions: number) => HierarchicalNSW;
}
