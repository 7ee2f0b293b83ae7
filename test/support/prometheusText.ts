import parsePrometheusTextFormat from 'parse-prometheus-text-format';

/** A scrape of `/metrics` read with a Prometheus text-format parser. */
export interface Scrape {
  /** Each family's type by name (`troupe_agents` → `GAUGE`). */
  readonly types: ReadonlyMap<string, string>;
  /** The sum of the samples named `name` whose labels include `labels` (a histogram's `_count`, `_sum` and `_bucket` are samples too). */
  value(name: string, labels?: Readonly<Record<string, string>>): number;
  /** The label sets of the samples named `name`. */
  labelSets(name: string): Readonly<Record<string, string>>[];
}

/**
 * Parses `text` twice: as it is (every line must parse, each family with its type), then with the
 * histograms' TYPE lines left out, so each `_bucket`, `_sum` and `_count` series is read as plain
 * samples with its labels: the parser merges a histogram's label sets into one otherwise.
 */
export function readScrape(text: string): Scrape {
  const types = new Map(parsePrometheusTextFormat(text).map((family) => [family.name, family.type]));
  const plain = text
    .split('\n')
    .filter((line) => !/^# TYPE \S+ histogram$/.test(line))
    .join('\n');
  const samples = parsePrometheusTextFormat(plain).flatMap((family) =>
    family.metrics.map((sample) => ({ name: family.name, labels: sample.labels ?? {}, value: Number(sample.value) })),
  );
  const matching = (name: string, labels: Readonly<Record<string, string>>) =>
    samples.filter((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value));
  return {
    types,
    value: (name, labels = {}) => matching(name, labels).reduce((sum, sample) => sum + sample.value, 0),
    labelSets: (name) => matching(name, {}).map((sample) => sample.labels),
  };
}
