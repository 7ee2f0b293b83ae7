export { McpServers, type McpServerStatus } from './mcpServers.js';
export { mcpSecrets, parseMcpServers, readMcpConfigFile, type McpServerConfig, type McpServerConfigInput } from './mcpConfig.js';
