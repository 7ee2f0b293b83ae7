import { describe, expect, it } from 'vitest';
import { Redactor, redactedMark, redactingLogger } from '../../src/task/index.js';
import { LevelledMemoryLogger } from '../support/levelledLogger.js';

describe('redactingLogger and log levels', () => {
  const redactor = new Redactor(['hunter2-configured']);

  it('drops a line at a level the logger does not write before redacting it, and says which levels it writes', () => {
    const logger = new LevelledMemoryLogger('info');
    const redacting = redactingLogger(logger, redactor);
    let fieldsRead = 0;
    const fields = {
      get url(): string {
        fieldsRead += 1;
        return '/api/agents?access_token=hunter2-configured';
      },
    };
    redacting.debug(fields, 'request');
    expect(fieldsRead).toBe(0);
    expect(logger.unwritten).toEqual([]);
    expect(redacting.isLevelEnabled?.('debug')).toBe(false);
    expect(redacting.isLevelEnabled?.('info')).toBe(true);

    redacting.info(fields, 'request with hunter2-configured');
    expect(fieldsRead).toBe(1);
    expect(logger.entries).toEqual([{ level: 'info', message: `request with ${redactedMark}`, fields: { url: `/api/agents?access_token=${redactedMark}` } }]);
  });
});
