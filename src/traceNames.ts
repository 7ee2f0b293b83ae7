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
  /** Content, set only when the runtime is told to record it (`traceContent`). */
  inputMessages: 'gen_ai.input.messages',
  outputMessages: 'gen_ai.output.messages',
  toolArguments: 'gen_ai.tool.call.arguments',
  toolResult: 'gen_ai.tool.call.result',
  errorType: 'error.type',
  mcpMethodName: 'mcp.method.name',
  /** Where a remote agent is (the GenAI conventions' remote `invoke_agent`), and the JSON-RPC method an A2A request named. */
  serverAddress: 'server.address',
  serverPort: 'server.port',
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
