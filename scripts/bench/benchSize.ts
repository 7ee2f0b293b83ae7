/**
 * How big the bench runs, from BENCH_SIZE: `full` (the default) for the figures, or `smoke`, every
 * suite at a tiny size so the whole bench runs to the end in seconds. `npm test` runs it so (see
 * test/bench/smoke.test.ts) to keep every suite working; a smoke run's figures mean nothing.
 */
const sizes = ['full', 'smoke'] as const;
export type BenchSize = (typeof sizes)[number];

function sizeFrom(value: string | undefined): BenchSize {
  if (value === undefined || value === '') return 'full';
  const size = sizes.find((candidate) => candidate === value);
  if (size === undefined) throw new Error(`BENCH_SIZE must be ${sizes.join(' or ')}, got ${JSON.stringify(value)}`);
  return size;
}

export const benchSize: BenchSize = sizeFrom(process.env['BENCH_SIZE']);

/** `full` in a full run, `smoke` in a smoke run. */
export function sized<T>(full: T, smoke: T): T {
  return benchSize === 'smoke' ? smoke : full;
}

/** Suites a smoke run runs at once: all at once, every suite's timeouts would race the load of all the others. */
const smokeAtOnce = 4;

/**
 * `run` of each of `items`, in order: one after another in a full run, so no figure carries
 * another's load; a few at a time in a smoke run, whose figures mean nothing anyway.
 */
export async function inTurn<const T extends readonly unknown[], R>(items: T, run: (item: T[number]) => Promise<R>): Promise<{ -readonly [K in keyof T]: R }> {
  const results: R[] = [];
  const atOnce = benchSize === 'smoke' ? smokeAtOnce : 1;
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      results[i] = await run(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(atOnce, items.length) }, worker));
  return results as { -readonly [K in keyof T]: R };
}
