import type { Subscription } from 'rxjs';
import type { EventBus } from '../../bus/index.js';
import type { Clock } from '../../clock.js';
import type { IdGenerator } from '../../ids.js';
import type { Logger } from '../../logger.js';
import type { ApprovalDesk } from '../approvals/approvalDesk.js';
import { NodePlacementLimitsSchema } from '../society/nodePlacement.js';
import type { Society } from '../society/society.js';
import { announceOwnerStart, serveOrgRequests } from './orgRequests.js';
import { SocietyApprovals } from './societyApprovals.js';

export interface NodesOwnerParts {
  readonly bus: EventBus;
  readonly society: Society;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly logger: Logger;
  /** The runtime's own desk, beside which the calls waiting on nodes are listed. */
  readonly desk: ApprovalDesk;
  readonly maxPendingApprovals: number;
  readonly nodeRequestTimeoutMs?: number | undefined;
}

/**
 * What the owner of a society spread over nodes does for them as it starts: it answers their
 * agents' requests to change the organisation, tells them it has started (the agents an earlier
 * owner placed are restored here, from the store, so the nodes let go of theirs), and lists the
 * calls waiting for a person on them beside its own.
 */
export function ownNodes(parts: NodesOwnerParts): { orgRequests: Subscription; approvals: SocietyApprovals } {
  const { bus, society, clock, ids, logger, desk } = parts;
  const orgRequests = serveOrgRequests(bus, society, clock);
  announceOwnerStart(bus, ids, clock);
  const { nodeRequestTimeoutMs } = NodePlacementLimitsSchema.pick({ nodeRequestTimeoutMs: true }).parse({ nodeRequestTimeoutMs: parts.nodeRequestTimeoutMs });
  const approvals = new SocietyApprovals(desk, { bus, clock, ids, logger, maxPending: parts.maxPendingApprovals, requestTimeoutMs: nodeRequestTimeoutMs });
  return { orgRequests, approvals };
}
