// The one sanitiser lives below every layer that lets anything out (src/task/redact.ts).
export { Redactor, redactedMark } from '../task/index.js';
