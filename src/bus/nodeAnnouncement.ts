import { z } from 'zod';
import { AgentIdSchema } from '../task/index.js';

/** Where a society's nodes report to: the process holding the user endpoint and the org store. */
export const ownerAgentId = 'owner';

/** The actions of the node protocol, Tasks on the society's bus like any other. */
export const NodeActions = {
  /** A node is up and hosts these roles; repeated every heartbeat interval, so a late owner learns of it too. */
  announce: 'nodes.announce',
  /** A node is going away cleanly: its agents go with it. */
  leave: 'nodes.leave',
} as const;

/** The most roles one node may host: an announcement is one Task, and stays small. */
export const maxRolesPerNode = 100;

/** A role's name as a node hosts it: the alphabet of agent ids, whose readable prefix it becomes. */
const HostedRoleSchema = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1–64 letters, digits, "_" or "-"');

/** What a node says of itself in `nodes.announce` and `nodes.leave`; checked on both sides of the wire. */
export const NodeAnnouncementSchema = z
  .object({
    node: AgentIdSchema,
    roles: z
      .array(HostedRoleSchema)
      .min(1, 'a node hosts at least one role')
      .max(maxRolesPerNode, `a node hosts at most ${maxRolesPerNode} roles`)
      .refine((roles) => new Set(roles).size === roles.length, 'each role once'),
    /** How often the node announces itself: an owner hearing nothing for a few of these may take it for gone. */
    heartbeatMs: z.number().int().positive(),
    /**
     * Made afresh each time the node's process starts: the same node back under a new incarnation
     * was restarted, and the agents it hosted before are gone.
     */
    incarnation: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1–64 letters, digits, "_" or "-"'),
  })
  .strict();
export type NodeAnnouncement = z.infer<typeof NodeAnnouncementSchema>;
