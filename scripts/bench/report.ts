import { type Timing, percentile } from './measure.js';

/** One line of the benchmark table. */
export interface Row {
  readonly benchmark: string;
  readonly troupe: string;
  readonly raw: string;
  /** troupe / raw for times and bytes, raw / troupe for rates: above 1 means troupe costs more. */
  readonly ratio: number;
  readonly notes: string;
}

/** `1.23 M/s`, `456 k/s`, `789 /s`. */
export function rate(perSecond: number, unit = 'ops'): string {
  if (perSecond >= 1e6) return `${(perSecond / 1e6).toFixed(2)} M ${unit}/s`;
  if (perSecond >= 1e3) return `${(perSecond / 1e3).toFixed(1)} k ${unit}/s`;
  return `${perSecond.toFixed(0)} ${unit}/s`;
}

/** A duration given in milliseconds, in the unit that reads best. */
export function duration(ms: number): string {
  if (ms >= 1000) return `${(ms / 1000).toFixed(2)} s`;
  if (ms >= 1) return `${ms.toFixed(1)} ms`;
  if (ms >= 0.001) return `${(ms * 1000).toFixed(2)} µs`;
  return `${(ms * 1e6).toFixed(0)} ns`;
}

/** A byte count: `3.4 KB`, `12.0 MB`. */
export function bytes(count: number): string {
  if (Math.abs(count) >= 1024 * 1024) return `${(count / 1024 / 1024).toFixed(1)} MB`;
  if (Math.abs(count) >= 1024) return `${(count / 1024).toFixed(1)} KB`;
  return `${count.toFixed(0)} B`;
}

/** `4.2×`. */
export function times(ratio: number): string {
  if (!Number.isFinite(ratio)) return 'n/a';
  // Two significant digits below 0.1, so a 200× speed-up does not read as 0.00×.
  if (ratio > 0 && ratio < 0.1) return `${ratio.toPrecision(2)}×`;
  return `${ratio >= 10 ? ratio.toFixed(0) : ratio.toFixed(2)}×`;
}

const escape = (cell: string): string => cell.replaceAll('|', '\\|');

/** The rows as one markdown table. */
export function markdownTable(rows: readonly Row[]): string {
  const head = ['benchmark', 'troupe', 'raw baseline', 'ratio (troupe/raw)', 'notes'];
  const lines = [`| ${head.join(' | ')} |`, `| ${head.map(() => '---').join(' | ')} |`];
  for (const row of rows) {
    lines.push(`| ${[row.benchmark, row.troupe, row.raw, times(row.ratio), row.notes].map(escape).join(' | ')} |`);
  }
  return lines.join('\n');
}

/** A timing as its p50 and p99. */
function p50p99(timing: Timing): string {
  return `p50 ${duration(percentile(timing.samplesMs, 50))} · p99 ${duration(percentile(timing.samplesMs, 99))}`;
}

/** A row of two per-operation timings, shown as p50 and p99, their ratio that of the p50s. */
export function p50Row(benchmark: string, troupe: Timing, raw: Timing, notes: string): Row {
  return { benchmark, troupe: p50p99(troupe), raw: p50p99(raw), ratio: percentile(troupe.samplesMs, 50) / percentile(raw.samplesMs, 50), notes };
}
