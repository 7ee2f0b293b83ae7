import { join } from 'node:path';
import type { ChatMessage } from '../../src/llm/index.js';
import { projectRoot, transpiledPath } from './cliProcess.js';

/**
 * The stdio config of a test MCP server fixture (`test/fixtures/mcp/<name>.ts`), run by node from
 * the run's transpiled JavaScript. Its calls run unasked (`requireApproval: false`): the tests of
 * approvals ask for them again.
 */
export function stdioFixture(
  name: 'stdioServer' | 'silentServer',
  env: Record<string, string> = {},
): { command: string; args: string[]; env: Record<string, string>; requireApproval: boolean } {
  return { command: process.execPath, args: [join(projectRoot, transpiledPath(`test/fixtures/mcp/${name}.ts`))], env, requireApproval: false };
}

/** A scripted model step calling `name` with `args`. */
export function callStep(name: string, args: Record<string, unknown> = {}): { toolCalls: { name: string; arguments: Record<string, unknown> }[] } {
  return { toolCalls: [{ name, arguments: args }] };
}

/** A tool message's content as the error result it is. */
export function errorOf(content: string | undefined): { error?: string; code?: string } {
  return JSON.parse(content ?? '{}') as { error?: string; code?: string };
}

/** The tool messages of a model request, by tool name. */
export function toolMessages(messages: readonly ChatMessage[] | undefined): { name: string; content: string }[] {
  return (messages ?? []).flatMap((message) => (message.role === 'tool' ? [{ name: message.name, content: message.content }] : []));
}
