import type { Subscription } from 'rxjs';
import { TroupeError, describeError } from '../errors.js';
import type { Runtime } from '../runtime/index.js';
import { type Approval, type ApprovalDecisionInput, redactApproval } from '../task/index.js';
import { LineReader, askDecision, decidedOnTerminal } from './approvalPrompt.js';
import type { CliOutput } from './cliIo.js';

/**
 * How `troupe run` answers a tool call waiting for approval: asks on the terminal (`ask`),
 * approves every one (`all`, `--approve-all`), or, with no terminal to ask on, rejects it (`refuse`).
 */
export type RunApprovalMode =
  { readonly kind: 'all' } | { readonly kind: 'refuse' } | { readonly kind: 'ask'; readonly input: NodeJS.ReadableStream; readonly output: CliOutput };

/** Who an `--approve-all` approval is recorded as given by. */
const approvedByFlag = 'cli --approve-all';

/** What the model reads of a call rejected for want of a terminal. */
const noTerminalMessage = 'no person could be asked: troupe run has no terminal to ask on, and rejects such calls unless run with --approve-all';

export interface RunApprovalHooks {
  /** Writes a line on stderr, above the status line. */
  print(line: string): void;
  /** The status line stops while a question is on the terminal, and starts again after. */
  pause(): void;
  resume(): void;
}

/**
 * Answers the approvals `rt` asks for while `troupe run` runs, one question at a time on a
 * terminal: a call's arguments are shown redacted with the runtime's redactor. Ends with `close`.
 */
export class RunApprovals {
  readonly #subscription: Subscription;
  #asking: Promise<void> = Promise.resolve();
  /** The terminal's lines, read from the first question on: a run that asks nothing leaves stdin alone. */
  #lines: LineReader | undefined;
  #closed = false;

  constructor(
    private readonly rt: Runtime,
    private readonly mode: RunApprovalMode,
    private readonly hooks: RunApprovalHooks,
  ) {
    this.#subscription = rt.approvalEvents().subscribe((event) => {
      if (event.type === 'waiting') this.#answer(event.approval);
    });
  }

  close(): void {
    this.#closed = true;
    this.#subscription.unsubscribe();
    this.#lines?.close();
  }

  #open(): boolean {
    return !this.#closed;
  }

  #answer(approval: Approval): void {
    const { mode } = this;
    const call = `${approval.tool} call ${approval.id} of ${approval.agentId}`;
    if (mode.kind === 'all') {
      void this.#decide(approval, { action: 'approve', digest: approval.digest, by: approvedByFlag }, `approved ${call} (--approve-all)`);
    } else if (mode.kind === 'refuse') {
      const decision: ApprovalDecisionInput = { action: 'reject', digest: approval.digest, by: decidedOnTerminal, message: noTerminalMessage };
      void this.#decide(
        approval,
        decision,
        `rejected ${call}: it needs a person's approval and there is no terminal to ask on (--approve-all approves every such call)`,
      );
    } else {
      // One question at a time: the next waits until this one is answered.
      this.#asking = this.#asking
        .then(() => this.#ask(approval, mode))
        .catch((error: unknown) => this.hooks.print(`troupe: could not ask about ${call}: ${describeError(error)}`));
    }
  }

  /** Decides `approval`; true when done with it (decided, or decided elsewhere), false when the decision was refused as input. */
  async #decide(approval: Approval, decision: ApprovalDecisionInput, said: string): Promise<boolean> {
    try {
      await this.rt.decide(approval.id, decision);
      this.hooks.print(`troupe: ${said}`);
      return true;
    } catch (error) {
      this.hooks.print(`troupe: ${this.rt.redactor.text(describeError(error))}`);
      return !(error instanceof TroupeError && error.code === 'invalid_input');
    }
  }

  async #ask(approval: Approval, mode: Extract<RunApprovalMode, { kind: 'ask' }>): Promise<void> {
    if (!this.#open() || this.rt.approval(approval.id)?.status !== 'pending') return;
    this.hooks.pause();
    try {
      for (;;) {
        this.#lines ??= new LineReader(mode.input);
        const decision = await askDecision(redactApproval(approval, this.rt.redactor), this.#lines, mode.output);
        if (decision === null) return;
        const said = `${decision.action === 'edit' ? 'edited' : decision.action === 'approve' ? 'approved' : 'rejected'} ${approval.tool} call ${approval.id}`;
        if (await this.#decide(approval, decision, said)) return;
      }
    } finally {
      // Not once the run is over: its status line is gone for good.
      if (this.#open()) this.hooks.resume();
    }
  }
}
