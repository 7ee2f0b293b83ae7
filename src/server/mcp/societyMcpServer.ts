import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { Runtime } from '../../runtime/index.js';
import { troupeVersion } from '../../version.js';
import { registerSocietyResources } from './societyResources.js';
import { type SocietyToolsContext, registerSocietyTools } from './societyTools.js';

// One for every server made: `/mcp` makes a server per request, and a validator of its own would
// be a new Ajv instance (its setup, and its compiled schemas) each time.
const validator = new AjvJsonSchemaValidator();

/**
 * An MCP server (the official SDK's `McpServer`) over a runtime: the society's tools and
 * resources (docs/mcp-server.md), everything it returns redacted. Connect it to one transport:
 * stdio for `troupe mcp`, a Streamable HTTP request for `/mcp`.
 */
export function societyMcpServer(runtime: Runtime, context: SocietyToolsContext): McpServer {
  const server = new McpServer(
    { name: 'troupe', title: 'troupe society', version: troupeVersion() },
    {
      capabilities: { logging: {} },
      jsonSchemaValidator: validator,
      instructions:
        'A society of LLM agents. submit_requirement gives its root agent a requirement and waits for the answer; continue_session goes on with a session; ' +
        "read_messages, list_agents and the troupe:// resources show its work; a tool call may wait for a person's approval: list_approvals, decide_approval.",
    },
  );
  registerSocietyTools(server, runtime, context);
  registerSocietyResources(server, runtime, context.redactor);
  return server;
}
