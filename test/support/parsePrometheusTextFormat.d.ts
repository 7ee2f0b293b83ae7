// The package ships no types: what its parser returns, as far as the tests read it.
declare module 'parse-prometheus-text-format' {
  interface Sample {
    readonly value?: string;
    readonly labels?: Readonly<Record<string, string>>;
  }
  interface MetricFamily {
    readonly name: string;
    readonly help: string;
    readonly type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED';
    readonly metrics: readonly Sample[];
  }
  /** Throws on a line that is not in the Prometheus text format. */
  export default function parsePrometheusTextFormat(text: string): MetricFamily[];
}
