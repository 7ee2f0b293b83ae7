import type { InspectionEvent } from 'xstate';
import { createActor } from 'xstate';
import { turnActions } from '../task/index.js';
import type { AgentServices, provideAgentMachine } from './agentBehaviour.js';
import type { ActivityTracker } from './activity.js';
import type { AgentCell, AgentRecord } from './agentCell.js';
import type { Journal } from './journal.js';
import type { Role } from './roleBook.js';
import type { StartingPoint } from './startingPoint.js';

export interface AgentActorDeps extends AgentServices {
  readonly machine: ReturnType<typeof provideAgentMachine>;
  readonly activity: ActivityTracker;
  readonly journal: Journal | undefined;
  readonly inspect: ((event: InspectionEvent) => void) | undefined;
  /** Called with the new cell before its actor starts, so everything the actor does finds it. */
  readonly register: (cell: AgentCell) => void;
}

/**
 * Starts the actor of an agent whose record exists and connects it to the bus: Tasks to it
 * that ask for work become `task.received` (kept in the journal until answered), and its
 * snapshots keep the society's busy count.
 */
export function startAgentActor(deps: AgentActorDeps, record: AgentRecord, role: Role, from: StartingPoint): AgentCell {
  const { id } = record;
  const actor = createActor(deps.machine, {
    id,
    input: { agentId: id, roleId: role.id, parentId: record.parentAgentId, maxSteps: deps.config.maxSteps, mailboxLimit: deps.config.mailboxLimit, resume: from.resume },
    ...(deps.inspect === undefined ? {} : { inspect: deps.inspect }),
  });
  const usage = { calls: 0, promptTokens: 0, completionTokens: 0 };
  const cell: AgentCell = { role, conversation: from.conversation, actor, pendingCalls: [], turnCalls: new Map(), usage, inbox: undefined };
  deps.register(cell);
  actor.subscribe({
    // Runs on every event of every agent: the state value is read directly rather than through `matches`.
    next: (snapshot) => deps.activity.track(id, snapshot.status === 'active' && !(isIdle(snapshot.value) && snapshot.context.mailbox.length === 0)),
    error: (error) => {
      deps.activity.track(id, false);
      deps.logger.error({ agentId: id, error: String(error) }, 'agent actor stopped on an error');
    },
  });
  actor.start();
  // Only new work starts a turn; status updates and notices addressed to the agent are observations.
  cell.inbox = deps.bus.subscribe({ to: id }, (task) => {
    if (task.status !== 'submitted' || !turnActions.has(task.action)) return;
    // Kept until answered; a write that fails only costs the hand-back after a restart.
    deps.journal?.waiting(id, task).catch((error: unknown) => {
      deps.logger.error({ agentId: id, taskId: task.id, error: String(error) }, 'could not record a waiting Task');
    });
    actor.send({ type: 'task.received', task });
  }, `agent:${id}`);
  // Tasks it had accepted before a restart, in order (already kept in the journal).
  for (const task of from.waiting) actor.send({ type: 'task.received', task });
  return cell;
}

/** `running.idle`, from a snapshot's state value. */
function isIdle(value: unknown): boolean {
  return typeof value === 'object' && value !== null && (value as { running?: unknown }).running === 'idle';
}
