import { median } from './measure.js';
import type { WorkerReport } from './reactLoop.js';
import { times } from './report.js';

/**
 * The figures the ReAct-loop rows quote, from every side's worker reports (one a block): medians
 * of all rounds, per-block medians, and how each pair of processes compares.
 */
export function loopFigures<S extends string>(blocks: Record<S, WorkerReport[]>, troupeSide: NoInfer<S>) {
  const all = (side: S, samples: (report: WorkerReport) => number[]): number[] => blocks[side].flatMap(samples);
  const msPerStep = (side: S): number => median(all(side, (report) => report.msPerStepSamples));
  const cpuPerStep = (side: S): number => median(all(side, (report) => report.cpuPerStepSamples));
  return {
    msPerStep,
    cpuPerStep,
    range: (side: S): string => {
      const samples = all(side, (report) => report.msPerStepSamples);
      return `${Math.min(...samples).toFixed(2)}–${Math.max(...samples).toFixed(2)}`;
    },
    blockMedians: (side: S): string => blocks[side].map((report) => median(report.msPerStepSamples).toFixed(2)).join('/'),
    // troupe's block i against a hand loop's block i, run right after it: how far one pair of processes can stray.
    pairRatios: (hand: S, troupe: S = troupeSide): string => {
      const ratios = blocks[troupe].map((report, i) => median(report.msPerStepSamples) / median(blocks[hand][i]?.msPerStepSamples ?? [Number.NaN]));
      return `${times(Math.min(...ratios))}–${times(Math.max(...ratios))}`;
    },
    overhead: (hand: S, troupe: S = troupeSide): string => {
      const us = (msPerStep(troupe) - msPerStep(hand)) * 1000;
      return `${us >= 0 ? '+' : '−'}${Math.abs(us).toFixed(0)} µs/step`;
    },
    cpu: (hand: S, troupe: S = troupeSide): string =>
      `${troupe} ${cpuPerStep(troupe).toFixed(2)} ms, ${hand} ${cpuPerStep(hand).toFixed(2)} ms, ${times(cpuPerStep(troupe) / cpuPerStep(hand))}`,
    // Where a side's CPU goes, per step: the main thread, and every other thread
    // (for troupe-disk, lmdb's write thread and the kernel's fsync on its behalf, besides V8's GC helpers).
    threads: (side: S): string => {
      const split = blocks[side].map((report) => report.threadCpuPerStep);
      if (split.some((one) => one === null)) return `${side} n/a (no /proc)`;
      const part = (which: 'main' | 'others' | 'mainWaiting'): string => median(split.map((one) => one?.[which] ?? Number.NaN)).toFixed(2);
      return `${side} ${part('main')} ms main thread + ${part('others')} ms other threads, the main thread waiting ${part('mainWaiting')} ms for a CPU`;
    },
  };
}
