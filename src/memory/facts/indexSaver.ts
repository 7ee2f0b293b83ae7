import type { Embedder } from '../embedding/embedder.js';
import type { FactSet } from './factSet.js';
import { HnswIndex } from './hnswIndex.js';
import { saveIndex } from './indexFile.js';

/**
 * Saves one agent's index file when its vectors changed since the last save. hnswlib writes the
 * file on libuv's thread pool, reading the index as it goes, so a change to the index meanwhile
 * (an insert may reallocate it) could tear the file or crash the process: `saving` is set for as
 * long as a save runs, and the FactStore makes every change to the index wait for it.
 */
export class IndexSaver {
  readonly #file: string;
  readonly #embedder: Pick<Embedder, 'id' | 'dimension'>;
  #savedGeneration: number | null;
  /** Set while a save runs; it never rejects (the caller of `save` hears of a failure). */
  saving: Promise<void> | undefined;

  constructor(file: string, embedder: Pick<Embedder, 'id' | 'dimension'>, savedGeneration: number | null) {
    this.#file = file;
    this.#embedder = embedder;
    this.#savedGeneration = savedGeneration;
  }

  /** Saves the index of `set` unless the file already holds its generation; asked while a save runs, waits for that one. */
  save(set: FactSet): Promise<void> {
    if (this.saving !== undefined) return this.saving;
    const save = this.#write(set);
    const done = (): void => {
      this.saving = undefined;
    };
    this.saving = save.then(done, done);
    return save;
  }

  async #write(set: FactSet): Promise<void> {
    const index = await set.index;
    const { generation } = set.meta;
    // An exact index has no file: an open rebuilds it from the stored vectors.
    if (!(index instanceof HnswIndex) || this.#savedGeneration === generation) return;
    // The vectors kept out of the index are named, so an open knows the file lacks only them.
    const outside = [...set.vectors.outside].sort((a, b) => a - b);
    await saveIndex(index, this.#file, { embedder: this.#embedder.id, dimension: this.#embedder.dimension, generation, live: index.size, labels: outside });
    this.#savedGeneration = generation;
  }
}
