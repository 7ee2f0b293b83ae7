import { TroupeError } from '../errors.js';

/** How long a client refused for a full mailbox is told to wait before trying again. */
const mailboxRetryAfterSeconds = 1;

/** Why `agentId` cannot take `incoming` more Tasks now (its memory or the store is behind), or null when it can. */
export type BackPressure = (agentId: string, incoming: number) => TroupeError | null;

/**
 * The user's door to an agent's mailbox: a Task is refused at intake, before anything is written
 * or acknowledged, when the agent has `mailboxLimit` Tasks waiting, counting the user's Tasks
 * still being written, or when back-pressure says so: its memory too far behind to keep what the
 * Task will add (`memory_behind`), or the store behind the answers (`store_behind`).
 * One that passes is acknowledged and queued even past the limit (the agent machine's
 * `accepted` flag), so the caller never hears "accepted" for a Task refused later.
 */
export class IntakeGate {
  readonly #limit: number;
  readonly #backPressure: BackPressure;
  /** The user's Tasks admitted and not yet in their agent's mailbox, by agent; empty when idle. */
  readonly #inFlight = new Map<string, number>();

  constructor(mailboxLimit: number, backPressure: BackPressure = () => null) {
    this.#limit = mailboxLimit;
    this.#backPressure = backPressure;
  }

  /**
   * Runs `accept` for a Task to `agentId`, whose mailbox holds `queued`, unless that would fill
   * it past the limit. `accept` calls `handedOver` once the Task is on its way to the mailbox,
   * where it is counted from then on.
   */
  async admit<T>(agentId: string, queued: number, accept: (handedOver: () => void) => Promise<T>): Promise<T> {
    const inFlight = this.#inFlight.get(agentId) ?? 0;
    if (queued + inFlight >= this.#limit) {
      throw new TroupeError('mailbox_full', `agent ${agentId} has ${this.#limit} Tasks waiting (mailboxLimit); try again later`, {
        context: { agentId, retryAfterSeconds: mailboxRetryAfterSeconds },
      });
    }
    const behind = this.#backPressure(agentId, inFlight + 1);
    if (behind !== null) throw behind;
    this.#inFlight.set(agentId, inFlight + 1);
    let counted = true;
    const handedOver = (): void => {
      if (!counted) return;
      counted = false;
      const left = (this.#inFlight.get(agentId) ?? 1) - 1;
      if (left === 0) this.#inFlight.delete(agentId);
      else this.#inFlight.set(agentId, left);
    };
    try {
      return await accept(handedOver);
    } finally {
      handedOver();
    }
  }
}
