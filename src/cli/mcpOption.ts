import { type McpServerConfig, readMcpConfigFile } from '../tools/index.js';
import type { CliEnv } from './cliIo.js';
import type { RuntimeSettings } from './environment.js';

/** The MCP config file a command uses: `--mcp <file>`, else `TROUPE_MCP_CONFIG`, else none. */
function mcpConfigFile(flag: string | undefined, env: CliEnv): string | undefined {
  const fromEnv = env['TROUPE_MCP_CONFIG'];
  return flag ?? (fromEnv === undefined || fromEnv.trim() === '' ? undefined : fromEnv);
}

/** `createRuntime`'s `mcpServers` from that file; nothing without one. A bad file is refused naming it and the field. */
export async function mcpServersOption(flag: string | undefined, env: CliEnv): Promise<{ mcpServers?: Record<string, McpServerConfig> }> {
  const file = mcpConfigFile(flag, env);
  return file === undefined ? {} : { mcpServers: await readMcpConfigFile(file) };
}

/** What every command that starts a runtime gives it from its settings and `--mcp`: the MCP servers, the limits, memory, skills and data dir. */
export async function settingsOptions(settings: RuntimeSettings, mcpFlag: string | undefined, env: CliEnv) {
  return {
    ...(await mcpServersOption(mcpFlag, env)),
    ...settings.limits,
    memory: settings.memory,
    skills: settings.skills,
    dataDir: settings.dataDir,
  };
}
