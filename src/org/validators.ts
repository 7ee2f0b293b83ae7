import type { z } from 'zod';
import { ApprovalSchema, formatPath } from '../task/index.js';
import { type RecordDbName, isNameKey, isSeq, isSeqKey } from './keys.js';
import {
  AgentRecordSchema,
  ChildLinkRecordSchema,
  ConversationRecordSchema,
  InboxRecordSchema,
  MailboxRecordSchema,
  GivenWorkRecordSchema,
  MessageOrderRecordSchema,
  MessageRecordSchema,
  RoleRecordSchema,
  SessionAgentRecordSchema,
  ActiveSkillsRecordSchema,
  TerminationOrderRecordSchema,
  TerminationRecordSchema,
} from './schemas.js';

/** The first zod issue as `field: message`, the way a quarantine reason names the culprit. */
export function zodReason(error: z.ZodError): string {
  const issue = error.issues[0];
  if (issue === undefined) return 'invalid value';
  const field = formatPath(issue.path);
  return field === '' ? issue.message : `${field}: ${issue.message}`;
}

/** Checks a decoded record against its key; returns why it is invalid, or undefined. */
type Validator = (key: unknown, value: unknown) => string | undefined;

function shaped<S extends z.ZodType>(schema: S, keyCheck: (key: unknown, value: z.infer<S>) => string | undefined): Validator {
  return (key, value) => {
    const parsed = schema.safeParse(value);
    return parsed.success ? keyCheck(key, parsed.data) : zodReason(parsed.error);
  };
}

const keyIs = (expected: string, key: unknown): string | undefined =>
  key === expected ? undefined : `key: does not match the record (expected ${JSON.stringify(expected)})`;

/** Why a message-log key is invalid, or undefined: all opening checks of a message record (see checkedOnRead.ts). */
export const messageKeyReason = (key: unknown): string | undefined => (isSeqKey(key) ? undefined : 'key: expected [rootTaskId, seq]');
/** Why a waiting-Task key is invalid, or undefined: all opening checks of a waiting record (that it names its Task is checked when read). */
export const waitingKeyReason = (key: unknown): string | undefined => (isNameKey(key) ? undefined : 'key: expected [agentId, taskId]');
/** Why a key of the given-work index is invalid, or undefined: all opening checks of its records. */
export const givenWorkKeyReason = (key: unknown): string | undefined => (isNameKey(key) ? undefined : 'key: expected [agentId, taskId]');

/** How every record kind is validated (on open, but those checked on read when read): its schema, and its key against its value. */
export const validators: Readonly<Record<RecordDbName, Validator>> = {
  roles: shaped(RoleRecordSchema, (key, role) => keyIs(role.id, key)),
  agents: shaped(AgentRecordSchema, (key, agent) => keyIs(agent.id, key)),
  children: shaped(ChildLinkRecordSchema, (key) => (isNameKey(key) ? undefined : 'key: expected [parentAgentId, childAgentId]')),
  terminations: shaped(TerminationRecordSchema, (key, termination) => keyIs(termination.agentId, key)),
  terminationOrder: shaped(TerminationOrderRecordSchema, (key) => (isSeq(key) ? undefined : 'key: expected a sequence number')),
  messages: shaped(MessageRecordSchema, (key) => messageKeyReason(key)),
  messageOrder: shaped(MessageOrderRecordSchema, (key) => (isSeq(key) ? undefined : 'key: expected a sequence number')),
  givenWork: shaped(GivenWorkRecordSchema, (key) => givenWorkKeyReason(key)),
  conversations: shaped(ConversationRecordSchema, (key) => (isSeqKey(key) ? undefined : 'key: expected [agentId, seq]')),
  inbox: shaped(InboxRecordSchema, (key) => (isSeq(key) ? undefined : 'key: expected a sequence number')),
  sessionAgents: shaped(SessionAgentRecordSchema, (key, record) => keyIs(record.sessionId, key)),
  activeSkills: shaped(ActiveSkillsRecordSchema, (key, record) =>
    isNameKey(key) && key[0] === record.agentId && key[1] === record.sessionId ? undefined : 'key: expected [agentId, sessionId] of the record',
  ),
  approvals: shaped(ApprovalSchema, (key, record) =>
    isNameKey(key) && key[0] === record.agentId && key[1] === record.id ? undefined : 'key: expected [agentId, approvalId] of the record',
  ),
  mailboxes: shaped(MailboxRecordSchema, (key, record) =>
    isNameKey(key) && key[1] === record.task.id ? undefined : 'key: expected [agentId, taskId] of the Task it holds',
  ),
};
