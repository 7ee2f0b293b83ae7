import { type Observable, Subject } from 'rxjs';
import type { ModelCallMeasure, ModelCallSink } from '../../llm/index.js';

/** Something the runtime timed as it ended: a model call, or a write to the org store made durable. */
export type Measurement = ({ readonly type: 'model.call' } & ModelCallMeasure) | { readonly type: 'store.commit'; readonly seconds: number };

/**
 * Where a runtime's parts report what they timed, and where its readers (`/metrics`) take it from.
 * Nothing is built or sent while nobody subscribes.
 */
export class Measurements {
  readonly #measured = new Subject<Measurement>();

  readonly events: Observable<Measurement> = this.#measured.asObservable();

  /** What the society's models report each call to. */
  readonly modelCalls: ModelCallSink = {
    wanted: () => this.#measured.observed,
    report: (measure) => this.#measured.next({ type: 'model.call', ...measure }),
  };

  /** What the org store reports each durable write's latency to. */
  readonly storeCommitted = (seconds: number): void => {
    if (this.#measured.observed) this.#measured.next({ type: 'store.commit', seconds });
  };

  close(): void {
    this.#measured.complete();
  }
}
