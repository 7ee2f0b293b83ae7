export * from './schema.js';
export * from './actions.js';
export * from './task.js';
export { deepFreeze } from './freeze.js';
export { parseOrThrow, formatPath } from './validate.js';
export { taskAsPrompt, readPrompt } from './prompt.js';
export * from './chat.js';
export { Redactor, redactedMark, redactingLogger } from './redact.js';
export * from './termination.js';
