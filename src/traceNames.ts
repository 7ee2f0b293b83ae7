// The OpenTelemetry names troupe's spans use: the GenAI, MCP and RPC semantic conventions (still
// "Development", so their constants move between releases of the incubating package) copied here
// rather than imported, so a rename upstream is one edit here and never a broken import. A2A has
// no conventions of its own: a call to a remote agent is the GenAI `invoke_agent`, CLIENT and SERVER.

/** `gen_ai.operation.name` values, which also start the spans' names. */
export const GenAiOperations = {
  invokeAgent: 'invoke_agent',
  chat: 'chat',
  executeTool: 'execute_tool',
} as const;

/** Span attributes of the GenAI, MCP and general conventions that troupe sets. */
export const TraceAttributes = {
  operationName: 'gen_ai.operation.name',
  providerName: 'gen_ai.provider.name',
  agentId: 'gen_ai.agent.id',
  agentName: 'gen_ai.agent.name',
  conversationId: 'gen_ai.conversation.id',
  requestModel: 'gen_ai.request.model',
  responseModel: 'gen_ai.response.model',
  finishReasons: 'gen_ai.response.finish_reasons',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  toolName: 'gen_ai.tool.name',
  toolCallId: 'gen_ai.tool.call.id',
  toolType: 'gen_ai.tool.type',
  timeToFirstChunk: 'gen_ai.response.time_to_first_chunk',
  /** Content, set only when the runtime is told to record it (`traceContent`). */
  inputMessages: 'gen_ai.input.messages',
  outputMessages: 'gen_ai.output.messages',
  toolArguments: 'gen_ai.tool.call.arguments',
  toolResult: 'gen_ai.tool.call.result',
  errorType: 'error.type',
  mcpMethodName: 'mcp.method.name',
  mcpSessionId: 'mcp.session.id',
  mcpProtocolVersion: 'mcp.protocol.version',
  jsonrpcRequestId: 'jsonrpc.request.id',
  rpcStatusCode: 'rpc.response.status_code',
  networkTransport: 'network.transport',
  networkProtocolName: 'network.protocol.name',
  serverAddress: 'server.address',
  serverPort: 'server.port',
  clientAddress: 'client.address',
  clientPort: 'client.port',
  /** The JSON-RPC method an A2A request named. */
  rpcSystem: 'rpc.system',
  rpcMethod: 'rpc.method',
  /** troupe's own: the A2A task a remote agent works on. */
  a2aTaskId: 'troupe.a2a.task.id',
  /** troupe's own: the MCP server (its name in the config) a tool call went to. */
  mcpServer: 'troupe.mcp.server',
  /** troupe's own: the Task a span's work is for. */
  taskId: 'troupe.task.id',
} as const;

/** The MCP method troupe calls on a server when an agent uses one of its tools. */
export const mcpToolsCall = 'tools/call';

/** The name troupe's tracer is got by (`trace.getTracer`). */
export const tracerName = 'troupe';

/** A model client's name split the way the conventions want it: `openai:gpt-4o` is provider `openai`, model `gpt-4o`; a bare name is both. */
export function providerAndModel(name: string): { provider: string; model: string } {
  const colon = name.indexOf(':');
  return colon <= 0 ? { provider: name, model: name } : { provider: name.slice(0, colon), model: name.slice(colon + 1) };
}
