import { TroupeError } from '../../errors.js';
import { HandoffTargetsSchema, type ToolDefinition, handoffToolName, parseOrThrow } from '../../task/index.js';

/** One handoff target of a role, as the tool its model sees. */
export interface HandoffTool {
  /** The target as the role names it: an agent id, a role name or `user`. */
  readonly target: string;
  readonly definition: ToolDefinition;
}

const toUser = {
  type: 'object',
  properties: { message: { type: 'string', description: 'What you ask the user; they answer in this session' } },
  required: ['message'],
  additionalProperties: false,
};

const toAgent = {
  type: 'object',
  properties: { reason: { type: 'string', description: 'Why it is theirs to answer (optional)' } },
  additionalProperties: false,
};

/**
 * The `transfer_to_<name>` tools of a role's handoff targets. Refused with `invalid_input`,
 * naming the target: a name with nothing left once made a tool name, two targets that become the
 * same tool, and a target whose tool would take the name of a registered tool (`taken`).
 */
export function handoffTools(targets: readonly string[] | undefined, taken: (name: string) => boolean): readonly HandoffTool[] {
  const byName = new Map<string, string>();
  const tools: HandoffTool[] = [];
  for (const target of targets ?? []) {
    const name = handoffToolName(target);
    if (name === null) throw new TroupeError('invalid_input', `handoff target "${target}" has no letter or digit to make a tool name of`);
    const earlier = byName.get(name);
    if (earlier !== undefined) {
      throw new TroupeError('invalid_input', `handoff targets "${earlier}" and "${target}" both become the tool ${name}; list one of them`);
    }
    if (taken(name)) throw new TroupeError('invalid_input', `handoff target "${target}" becomes ${name}, the name of a registered tool`);
    byName.set(name, target);
    const description =
      target === 'user'
        ? 'Hand the conversation back to the user: ask them what you need. Your turn ends; their answer comes to you.'
        : `Hand this conversation over to ${target}, who answers the user from here and gets their next messages. Your turn ends.`;
    tools.push({ target, definition: { name, description, parameters: target === 'user' ? toUser : toAgent } });
  }
  return tools;
}

/** A role's handoff targets from outside (code, HTTP), checked: the list's shape and every rule of `handoffTools`. */
function checkedHandoffs(targets: readonly string[] | undefined, taken: (name: string) => boolean): string[] | undefined {
  if (targets === undefined) return undefined;
  const parsed = parseOrThrow(HandoffTargetsSchema, targets, 'handoffs');
  handoffTools(parsed, taken);
  return parsed;
}

/** A new role's input with its handoff targets checked (`checkedHandoffs`); the tools of `registry` are the names taken. */
export function withCheckedHandoffs<T extends { readonly handoffs?: readonly string[] | undefined }>(
  input: T,
  registry: { get(name: string): unknown },
): Omit<T, 'handoffs'> & { handoffs?: string[] } {
  const { handoffs, ...rest } = input;
  const checked = checkedHandoffs(handoffs, (name) => registry.get(name) !== undefined);
  return checked === undefined ? rest : { ...rest, handoffs: checked };
}
