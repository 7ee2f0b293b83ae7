import type { Approval } from './approval.js';
import type { Redactor } from './redact.js';
import type { JsonValue } from './schema.js';

/** A call's arguments (JSON text) redacted as a value, so a secret under a key like `apiKey` goes too; text that is not JSON, as text. */
function redactedArguments(text: string, redactor: Redactor): string {
  let parsed: JsonValue;
  try {
    parsed = JSON.parse(text) as JsonValue;
  } catch {
    return redactor.text(text);
  }
  return JSON.stringify(redactor.value(parsed));
}

/**
 * `approval` as it may be shown (HTTP, the event stream, the terminal): its arguments, an edit's
 * arguments and a rejection's message redacted. The digest stays that of the real arguments, so a
 * decision made on what was shown still names the call it was shown.
 */
export function redactApproval(approval: Approval, redactor: Redactor): Approval {
  const { decision } = approval;
  return {
    ...approval,
    arguments: redactedArguments(approval.arguments, redactor),
    decision:
      decision === null
        ? null
        : {
            ...decision,
            ...(decision.message === undefined ? {} : { message: redactor.text(decision.message) }),
            ...(decision.arguments === undefined ? {} : { arguments: redactedArguments(decision.arguments, redactor) }),
          },
  };
}
