import type { EventBus } from '../bus/index.js';
import type { ModelClient } from '../llm/index.js';
import type { ToolExecution, ToolRegistry } from '../tools/index.js';
import type { RunTape } from './runTape.js';

/**
 * How a recording or a replay stands at a runtime's boundaries, besides the clock and ids it is
 * given: around the model agents see (retries included), around every tool's execution, and at
 * the runtime's start, shutdown and close.
 */
export interface RunTap {
  readonly tape: RunTape;
  /** The model as agents are to see it. */
  model(model: ModelClient): ModelClient;
  readonly execution: ToolExecution;
  /** The runtime has started (its organisation restored, before it takes work): its bus and tools. */
  started(bus: EventBus, tools: ToolRegistry): void;
  /** The program began the runtime's shutdown. */
  shuttingDown(): void;
  /** The runtime has closed everything it opened. */
  closed(): void;
}
