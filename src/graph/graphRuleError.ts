import { type ErrorCode, TroupeError, type ErrorContext } from '../errors.js';

/** The rule of the graph a refused change broke. */
export type GraphRule =
  | 'unknown_node'
  | 'node_exists'
  | 'kind_change'
  | 'unknown_edge'
  | 'duplicate_edge'
  | 'self_loop'
  | 'edge_kinds'
  | 'cycle'
  | 'second_parent'
  | 'node_limit'
  | 'edge_limit';

/** The code of a refusal of `rule`: a full graph is `memory_full`, a node it does not hold `unknown_node`, the rest broken input. */
function codeOf(rule: GraphRule): ErrorCode {
  if (rule === 'node_limit' || rule === 'edge_limit') return 'memory_full';
  return rule === 'unknown_node' ? 'unknown_node' : 'invalid_input';
}

/**
 * A change the graph refused; the graph is exactly as it was before it. A graph at one of its
 * limits refuses with `memory_full`; a node it does not hold is `unknown_node`; any other rule is
 * broken input (`invalid_input`), the way a model's tool call that links two nodes wrongly is.
 */
export class GraphRuleError extends TroupeError {
  readonly rule: GraphRule;

  constructor(rule: GraphRule, message: string, context: ErrorContext = {}) {
    super(codeOf(rule), message, { context: { rule, ...context } });
    this.rule = rule;
  }
}
