import { type TraceCarrier, activeCarrier, carrierFields } from '../traceContext.js';
import type { Clock } from '../clock.js';
import type { IdGenerator } from '../ids.js';
import { AgentIdSchema, createTask, parseOrThrow } from '../task/index.js';
import { UserTextSchema } from './config/config.js';
import type { Journal } from './journal/journal.js';
import type { IntakeGate } from './limits/intakeGate.js';
import type { Society } from './society/society.js';
import type { UserEndpoint } from './userEndpoint.js';

export interface UserIntakeDeps {
  readonly society: Society;
  readonly journal: Journal;
  readonly user: UserEndpoint;
  readonly gate: IntakeGate;
  readonly ids: IdGenerator;
  readonly clock: Clock;
  readonly maxInputChars: number;
  /** Throws `intake_closed` unless the runtime takes new work. */
  readonly requireOpen: () => void;
}

/**
 * The user's text on its way to an agent (`submit`, `send`): checked, refused when its agent
 * cannot take it, written down, then handed to the user endpoint, which publishes it.
 */
export class UserIntake {
  readonly #deps: UserIntakeDeps;
  // Built once: zod schemas are cheap to run and costly to build.
  readonly #textSchema: ReturnType<typeof UserTextSchema.max>;

  constructor(deps: UserIntakeDeps) {
    this.#deps = deps;
    this.#textSchema = UserTextSchema.max(deps.maxInputChars);
  }

  /** Sends `text` to `to` as a Task of `action`; resolves with its id once it is handed over. */
  async input(to: string, text: string, action: string, parentId: string | null, sessionId: string | undefined, given?: TraceCarrier): Promise<string> {
    const { society, journal, user, gate, ids, clock, requireOpen } = this.#deps;
    requireOpen();
    const target = parseOrThrow(AgentIdSchema, to, 'agentId');
    const body = parseOrThrow(this.#textSchema, text, 'text');
    // Submitted with a caller's trace context, or inside a span of the caller's (with a context manager registered), the work joins its trace.
    const trace = given ?? activeCarrier();
    const metadata = trace === undefined ? {} : { metadata: carrierFields(trace) };
    const task = createTask({ from: 'user', to: target, action, parameters: { text: body }, parentId, sessionId, ...metadata }, { ids, clock });
    // The user endpoint's machine says whether it takes this input (open, not addressed to the user).
    user.check(task);
    // Unknown, terminated, unreachable on its node, or draining (it has let go of its inbox: a Task sent now would never be answered).
    society.requireLive(target);
    // A restored agent not started yet starts now, before the Task is written, so it queues behind those it had waiting.
    const queued = society.startRestored(target)?.waitingForTurn ?? 0;
    return gate.admit(target, queued, (handedOver) =>
      journal.userInput(task, () => {
        handedOver();
        requireOpen();
        user.input(task);
        return task.id;
      }),
    );
  }
}
