import type { Approval, ApprovalNotice } from '../../task/index.js';
import { type StepPause, noticeOf } from './approvalGate.js';

/** What a step's pause acts on: durability, the lane's reports, and whether the turn was stopped meanwhile. */
export interface PauseHooks {
  /** Resolves once what the step wrote so far is durable. */
  durable(): Promise<void>;
  /** Every call of the step is done or waiting, and these wait: the lane pauses. */
  paused(approvals: readonly ApprovalNotice[]): void;
  /** Nothing waits any more: the lane goes on. */
  resumed(): void;
  stopped(): boolean;
}

/**
 * The calls of one tool step, as far as approvals go. The lane pauses (its Task `input-required`)
 * only once every call that needs no approval has finished and what they wrote is durable: a
 * crash during the pause then never runs them again, and the pause means the step has nothing
 * left to do but wait for a person. A person may decide before that: the lane never pauses then.
 */
export class StepApprovals implements StepPause {
  #running: number;
  readonly #waiting = new Map<string, ApprovalNotice>();
  #paused = false;
  #check = 0;

  constructor(
    calls: number,
    private readonly hooks: PauseHooks,
  ) {
    this.#running = calls;
  }

  waiting(approval: Approval): void {
    this.#running--;
    this.#waiting.set(approval.id, noticeOf(approval));
    this.#pauseWhenDone();
  }

  decided(id: string): void {
    this.#waiting.delete(id);
    this.#running++;
    this.#check++;
    if (!this.#paused || this.hooks.stopped()) return;
    if (this.#waiting.size > 0) {
      this.hooks.paused([...this.#waiting.values()]);
      return;
    }
    this.#paused = false;
    this.hooks.resumed();
  }

  /** A call of the step has its result (run, refused or rejected). */
  finished(): void {
    this.#running--;
    this.#pauseWhenDone();
  }

  #pauseWhenDone(): void {
    if (this.#running > 0 || this.#waiting.size === 0) return;
    const check = ++this.#check;
    // What could not be made durable is the journal's to report; the lane pauses all the same.
    const pause = (): void => {
      // A decision (or another call) came meanwhile: the pause is for a later check, if any.
      if (check !== this.#check || this.hooks.stopped()) return;
      this.#paused = true;
      this.hooks.paused([...this.#waiting.values()]);
    };
    void this.hooks.durable().then(pause, pause);
  }
}
