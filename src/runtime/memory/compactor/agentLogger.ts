import { type Logger, logsAt } from '../../../logger.js';

/**
 * `logger` with `agentId` on every line: memory's helpers log what they fell back from without
 * knowing whose memory they work on, and a line without the agent is no use to whoever reads it.
 */
export function agentLogger(logger: Logger, agentId: string): Logger {
  return {
    debug: (fields, message) => logger.debug({ agentId, ...fields }, message),
    info: (fields, message) => logger.info({ agentId, ...fields }, message),
    warn: (fields, message) => logger.warn({ agentId, ...fields }, message),
    error: (fields, message) => logger.error({ agentId, ...fields }, message),
    isLevelEnabled: (level) => logsAt(logger, level),
  };
}
