import { describe, expect, it } from 'vitest';
import { toolResultOf } from '../../../src/tools/mcp/mcpTool.js';
import { Redactor } from '../../../src/task/index.js';

// An MCP server's answer as troupe keeps it: text for the model, binary blocks as artifacts.

const options = { maxResultBytes: 10_000, redactor: new Redactor(['s3cret']), toolName: 'render' };
const base64 = (bytes: number[]): string => Buffer.from(bytes).toString('base64');

describe('an MCP tool result', () => {
  it('keeps images, audio and binary resources as artifacts, named by the tool or the resource, and tells the model of each', () => {
    const result = toolResultOf(
      {
        content: [
          { type: 'text', text: 'here, s3cret' },
          { type: 'image', data: base64([1, 2, 3]), mimeType: 'image/png' },
          { type: 'audio', data: base64([4, 5]), mimeType: 'audio/wav' },
          { type: 'resource', resource: { uri: 'file:///tmp/report.pdf', blob: base64([6]), mimeType: 'application/pdf' } },
          { type: 'resource', resource: { uri: 'file:///tmp/notes.txt', text: 'inline notes', mimeType: 'text/plain' } },
        ],
      },
      'render on MCP server "x"',
      options,
    );
    expect(result.artifacts?.map(({ name, mediaType, content }) => [name, mediaType, [...(content as Uint8Array)]])).toEqual([
      ['render-2.png', 'image/png', [1, 2, 3]],
      ['render-3.wav', 'audio/wav', [4, 5]],
      ['report.pdf', 'application/pdf', [6]],
    ]);
    expect(result.content).toBe(
      [
        'here, [REDACTED]',
        '[image image/png, 3 bytes, stored as "render-2.png"]',
        '[audio audio/wav, 2 bytes, stored as "render-3.wav"]',
        '[resource application/pdf, 1 bytes, stored as "report.pdf"]',
        'inline notes',
      ].join('\n'),
    );
  });

  it("stores a block whose media type is malformed as plain bytes, and keeps nothing of an error's blocks", () => {
    const odd = toolResultOf({ content: [{ type: 'image', data: base64([9]), mimeType: 'not a type\r\n' }] }, 'render', options);
    expect(odd.artifacts).toEqual([{ name: 'render-1.bin', mediaType: 'application/octet-stream', content: new Uint8Array([9]) }]);
    const failed = toolResultOf({ content: [{ type: 'image', data: base64([9]), mimeType: 'image/png' }], isError: true }, 'render', options);
    expect(failed.isError).toBe(true);
    expect(failed.artifacts).toBeUndefined();
  });
});
