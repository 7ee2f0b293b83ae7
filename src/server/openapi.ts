import { z } from 'zod';
import { GraphViewSchema, ImportReportSchema, MemoryViewSchema } from '../runtime/index.js';
import { ApprovalDecisionSchema, ApprovalSchema, JsonValueSchema, TaskSchema } from '../task/index.js';
import * as s from './schemas.js';

/** One route as the document describes it; the schemas are the same ones the handlers parse with. */
interface RouteDoc {
  readonly method: 'get' | 'post' | 'delete';
  readonly path: string;
  /** The name a generated client gives the call. */
  readonly operationId: string;
  readonly summary: string;
  readonly params?: z.ZodObject;
  readonly query?: z.ZodObject;
  readonly headers?: z.ZodObject;
  readonly body?: z.ZodType;
  /** The success reply; `also`: other statuses answered with the same body (`/ready`'s 503). */
  readonly reply: { readonly status: number; readonly schema?: z.ZodType; readonly mediaType?: string; readonly also?: readonly number[] };
  readonly errors: readonly number[];
  readonly public?: boolean;
}

const routes: readonly RouteDoc[] = [
  {
    method: 'post',
    path: '/api/submit',
    operationId: 'submit',
    summary: 'Give the root agent a requirement',
    body: s.SubmitBodySchema,
    reply: { status: 201, schema: s.SubmitReplySchema },
    errors: [400, 401, 413, 415, 429, 503],
  },
  {
    method: 'post',
    path: '/api/send',
    operationId: 'send',
    summary: "Send the user's message to an agent",
    body: s.SendBodySchema,
    reply: { status: 201, schema: s.SendReplySchema },
    errors: [400, 401, 404, 409, 413, 415, 429, 503],
  },
  {
    method: 'get',
    path: '/api/messages/{taskId}',
    operationId: 'getMessages',
    summary: 'Messages of a session (every task tree in it; a new session is named by its first task), in order (what reached the user by default)',
    params: s.TaskIdParamsSchema,
    query: s.MessagesQuerySchema,
    reply: { status: 200, schema: s.MessagesReplySchema },
    errors: [400, 401, 404],
  },
  {
    method: 'get',
    path: '/api/agents',
    operationId: 'listAgents',
    summary: 'A page of the agents of the organisation, oldest first, optionally by status',
    query: s.AgentsQuerySchema,
    reply: { status: 200, schema: s.AgentsReplySchema },
    errors: [400, 401],
  },
  {
    method: 'get',
    path: '/api/agents/{id}',
    operationId: 'getAgent',
    summary: 'One agent',
    params: s.AgentIdParamsSchema,
    reply: { status: 200, schema: s.AgentSchema },
    errors: [400, 401, 404],
  },
  {
    method: 'delete',
    path: '/api/agents/{id}',
    operationId: 'terminateAgent',
    summary:
      "Terminate an agent and its descendants as the user: a top-level agent other than root, or a top-level agent's child (e.g. a child of root whose parent's turn ended without terminating it); one the user terminated before answers as the first time",
    params: s.AgentIdParamsSchema,
    query: s.TerminateAgentQuerySchema,
    reply: { status: 200, schema: s.TerminateAgentReplySchema },
    errors: [400, 401, 403, 404, 409],
  },
  {
    method: 'post',
    path: '/api/tasks/{taskId}/cancel',
    operationId: 'cancelTask',
    summary:
      'Cancel a task an agent is working on or has queued (`rt.cancel`): its turn stops where it is, what it delegated is taken back, and it is answered `canceled`; 404 `unknown_task` when no agent holds it',
    params: s.TaskIdParamsSchema,
    body: s.CancelTaskBodySchema,
    reply: { status: 200, schema: s.CancelTaskReplySchema },
    errors: [400, 401, 404, 413, 415],
  },
  {
    method: 'get',
    path: '/api/agents/{id}/memory',
    operationId: 'getAgentMemory',
    summary:
      "What an agent remembers: counts of L1–L4, and a page of one tier (`tier`) or the L4 facts closest to `q`, of one session when `sessionId` is given; a terminated agent's from the data dir",
    params: s.AgentIdParamsSchema,
    query: s.AgentMemoryQuerySchema,
    reply: { status: 200, schema: MemoryViewSchema },
    errors: [400, 401, 404, 409, 503],
  },
  {
    method: 'post',
    path: '/api/agents/{id}/memory',
    operationId: 'importAgentMemory',
    summary:
      "Put facts and conversation turns into a live agent's long-term memory, in order (`rt.importMemory`): every item is checked first, and one bad item refuses them all, naming each (`items[4].speaker`); turns are stored as said, never merged",
    params: s.AgentIdParamsSchema,
    body: s.MemoryImportBodySchema,
    reply: { status: 200, schema: ImportReportSchema },
    errors: [400, 401, 404, 409, 413, 415, 429],
  },
  {
    method: 'delete',
    path: '/api/agents/{id}/memory/facts/{factId}',
    operationId: 'forgetAgentFact',
    summary:
      "Remove a fact from a live agent's long-term memory (`rt.forget`); 404 `unknown_fact` when it holds none of that id (saying which fact holds one merged away)",
    params: s.FactParamsSchema,
    reply: { status: 200, schema: s.ForgetFactReplySchema },
    errors: [400, 401, 404, 409],
  },
  {
    method: 'get',
    path: '/api/agents/{id}/graph/nodes',
    operationId: 'listGraphNodes',
    summary:
      "The newest nodes (events and notes) of an agent's graph memory, or of the society's with id `society` (`rt.graph`); archived events only with `includeArchived=true`; a terminated agent's from the data dir",
    params: s.AgentIdParamsSchema,
    query: s.GraphNodesQuerySchema,
    reply: { status: 200, schema: GraphViewSchema },
    errors: [400, 401, 404, 409, 503],
  },
  {
    method: 'get',
    path: '/api/agents/{id}/graph/nodes/{nodeId}',
    operationId: 'getGraphNode',
    summary:
      "A node of an agent's graph memory (or the society's, id `society`) with its neighbourhood to `depth` links (2 by default) and the edges among them, with their types (`rt.graph`); 404 `unknown_node` when the graph holds none of that id",
    params: s.GraphNodeParamsSchema,
    query: s.GraphNodeQuerySchema,
    reply: { status: 200, schema: GraphViewSchema },
    errors: [400, 401, 404, 409, 503],
  },
  {
    method: 'get',
    path: '/api/artifacts/{id}',
    operationId: 'getArtifact',
    summary:
      "An artifact a tool call stored (ids are listed with a session's messages): its content, with the artifact's own Content-Type and Content-Length; 404 `unknown_artifact` when never stored or evicted",
    params: s.ArtifactIdParamsSchema,
    reply: { status: 200, mediaType: '*/*' },
    errors: [400, 401, 404],
  },
  {
    method: 'get',
    path: '/api/skills',
    operationId: 'listSkills',
    summary:
      'The skills loaded, with their triggers (not their bodies), the skills refused at start, and with `match` the skills a Task of that text would activate and why',
    query: s.SkillsQuerySchema,
    reply: { status: 200, schema: s.SkillsReplySchema },
    errors: [400, 401],
  },
  {
    method: 'get',
    path: '/api/approvals',
    operationId: 'listApprovals',
    summary: "The tool calls waiting for a person's approval, oldest first (of one agent with `agentId`); arguments redacted, `digest` that of the real ones",
    query: s.ApprovalsQuerySchema,
    reply: { status: 200, schema: s.ApprovalsReplySchema },
    errors: [400, 401],
  },
  {
    method: 'get',
    path: '/api/approvals/{id}',
    operationId: 'getApproval',
    summary: 'One approval, waiting or decided, while its tool call is not over; 404 `unknown_approval` otherwise',
    params: s.ApprovalIdParamsSchema,
    reply: { status: 200, schema: ApprovalSchema },
    errors: [400, 401, 404],
  },
  {
    method: 'post',
    path: '/api/approvals/{id}',
    operationId: 'decideApproval',
    summary:
      "Decide a tool call waiting for approval (`rt.decide`): approve, reject (with a message the model reads) or edit (arguments checked against the tool's schema); 409 `conflict` when decided already or `digest` is not the waiting call's, 404 `unknown_approval`",
    params: s.ApprovalIdParamsSchema,
    body: ApprovalDecisionSchema,
    reply: { status: 200, schema: ApprovalSchema },
    errors: [400, 401, 404, 409, 413, 415],
  },
  {
    method: 'get',
    path: '/api/machines/agent',
    operationId: 'getAgentMachine',
    summary: "The agent machine's statechart, flat: its states by dotted path (as an agent's `state` names them) and each state's transitions",
    reply: { status: 200, schema: s.MachineDefinitionSchema },
    errors: [401],
  },
  {
    method: 'get',
    path: '/ui',
    operationId: 'dashboard',
    summary: 'The web dashboard, an HTML page (no token needed: the page asks for it and its API calls carry it)',
    reply: { status: 200, mediaType: 'text/html' },
    errors: [],
    public: true,
  },
  { method: 'get', path: '/api/roles', operationId: 'listRoles', summary: 'Every role', reply: { status: 200, schema: s.RolesReplySchema }, errors: [401] },
  {
    method: 'get',
    path: '/api/events',
    operationId: 'streamEvents',
    summary:
      'Live bus Tasks as Server-Sent Events (`event: task`, redacted JSON), approvals waiting or decided (`event: approval`, `{ type: "waiting" | "decided", approval }`), and `event: reset` when Last-Event-ID is too old or from before a restart',
    query: s.EventsQuerySchema,
    headers: z.object({ 'Last-Event-ID': s.LastEventIdSchema.optional() }),
    reply: { status: 200, mediaType: 'text/event-stream' },
    errors: [400, 401, 429, 503],
  },
  {
    method: 'post',
    path: '/mcp',
    operationId: 'mcp',
    summary:
      'The society as an MCP server (Streamable HTTP, stateless: no session id): one JSON-RPC message per request, answered as JSON or as an event stream while a tool call works (docs/mcp-server.md); the MCP SDK answers protocol errors in JSON-RPC',
    body: z.looseObject({ jsonrpc: z.literal('2.0'), method: z.string().optional() }),
    reply: { status: 200, schema: z.looseObject({ jsonrpc: z.literal('2.0') }) },
    errors: [400, 401, 413, 415, 503],
  },
  {
    method: 'get',
    path: '/metrics',
    operationId: 'getMetrics',
    summary: "The runtime's and the server's metrics in the Prometheus text format (docs/observability.md)",
    reply: { status: 200, mediaType: 'text/plain' },
    errors: [401],
  },
  {
    method: 'get',
    path: '/openapi.json',
    operationId: 'getOpenApiDocument',
    summary: 'This document',
    reply: { status: 200, schema: z.looseObject({ openapi: z.string() }) },
    errors: [401],
  },
  {
    method: 'get',
    path: '/health',
    operationId: 'health',
    summary: 'Liveness (no token needed)',
    reply: { status: 200, schema: s.HealthReplySchema },
    errors: [],
    public: true,
  },
  {
    method: 'get',
    path: '/ready',
    operationId: 'ready',
    summary:
      'Readiness: 200 while the runtime takes work with every restored agent started; 503 while restoring (the API already works), draining or stopped (no token needed)',
    reply: { status: 200, schema: s.ReadyReplySchema, also: [503] },
    errors: [],
    public: true,
  },
];

/** Named component schemas; everything else is inlined where it is used. */
const components: Record<string, z.ZodType> = {
  JsonValue: JsonValueSchema,
  Task: TaskSchema,
  Agent: s.AgentSchema,
  Approval: ApprovalSchema,
  Error: s.ErrorBodySchema,
};

type JsonSchema = Record<string, unknown>;

/**
 * A query number is parsed from text (digits, then a bounded integer): on the wire it is an
 * integer parameter with those bounds, which is what the document says, so clients send numbers.
 */
function queryIntegerAsInteger(ctx: { zodSchema: z.core.$ZodType; jsonSchema: JsonSchema }): void {
  const schema = ctx.zodSchema;
  const isQueryInteger = (inner: unknown): inner is z.ZodPipe<z.ZodType, z.ZodNumber> => inner instanceof z.ZodPipe && inner.out instanceof z.ZodNumber;
  // zod leaves out a default that is not of the input's type (a number, where the input is text).
  if (schema instanceof z.ZodDefault && isQueryInteger(schema.def.innerType)) ctx.jsonSchema['default'] = schema.def.defaultValue;
  if (!isQueryInteger(schema)) return;
  for (const key of Object.keys(ctx.jsonSchema)) Reflect.deleteProperty(ctx.jsonSchema, key);
  Object.assign(ctx.jsonSchema, { type: 'integer', minimum: schema.out.minValue, maximum: schema.out.maxValue });
}

/**
 * The component schemas and one schema per route part, converted by zod in one registry so
 * shared pieces become `$ref`s. zod puts recursive pieces (z.json) in a `__shared` entry with
 * `$defs`; they are lifted into the components so every `$ref` is a plain JSON pointer.
 */
function convert(parts: Record<string, z.ZodType>): Record<string, JsonSchema> {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries({ ...components, ...parts })) registry.add(schema, { id });
  const { schemas } = z.toJSONSchema(registry, {
    uri: (id) => `#/components/schemas/${id}`,
    io: 'input',
    unrepresentable: 'any',
    override: (ctx) => queryIntegerAsInteger(ctx as { zodSchema: z.core.$ZodType; jsonSchema: JsonSchema }),
  });
  const { __shared: shared, ...named } = schemas as Record<string, JsonSchema>;
  const lifted = { ...named, ...((shared?.['$defs'] ?? {}) as Record<string, JsonSchema>) };
  const text = JSON.stringify(lifted).replaceAll('#/components/schemas/__shared#/$defs/', '#/components/schemas/');
  const out = JSON.parse(text) as Record<string, JsonSchema>;
  for (const schema of Object.values(out)) {
    delete schema['$schema'];
    delete schema['$id'];
  }
  return out;
}

/**
 * Any JSON value, said without recursion: generators (openapi-typescript) turn zod's recursive
 * schema into a type that refers to itself, which TypeScript rejects, and a client loses `result`.
 */
const jsonValue: JsonSchema = {
  description: 'Any JSON value',
  type: ['string', 'number', 'boolean', 'null', 'array', 'object'],
  items: {},
  additionalProperties: {},
};

const refTo = (id: string): JsonSchema => ({ $ref: `#/components/schemas/${id}` });

function parameters(where: 'path' | 'query' | 'header', schema: JsonSchema | undefined): JsonSchema[] {
  const properties = (schema?.['properties'] ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema?.['required'] ?? []) as string[]);
  return Object.entries(properties).map(([name, property]) => ({ name, in: where, required: where === 'path' || required.has(name), schema: property }));
}

/** The OpenAPI 3.1 document of the HTTP API, generated from the zod schemas the routes parse with. */
export function openApiDocument(version: string): JsonSchema {
  const parts: Record<string, z.ZodType> = {};
  routes.forEach((route, index) => {
    if (route.params !== undefined) parts[`r${index}Params`] = route.params;
    if (route.query !== undefined) parts[`r${index}Query`] = route.query;
    if (route.headers !== undefined) parts[`r${index}Headers`] = route.headers;
    if (route.body !== undefined) parts[`r${index}Body`] = route.body;
    if (route.reply.schema !== undefined && !Object.values(components).includes(route.reply.schema)) parts[`r${index}Reply`] = route.reply.schema;
  });
  const converted = convert(parts);
  const componentId = (schema: z.ZodType | undefined): string | undefined => Object.entries(components).find(([, known]) => known === schema)?.[0];
  const paths: Record<string, Record<string, JsonSchema>> = {};
  routes.forEach((route, index) => {
    const replyId = componentId(route.reply.schema);
    const replySchema = replyId === undefined ? converted[`r${index}Reply`] : refTo(replyId);
    const responses: Record<string, JsonSchema> = {
      [route.reply.status]: {
        description: 'success',
        ...(route.reply.mediaType !== undefined ? { content: { [route.reply.mediaType]: { schema: { type: 'string' } } } } : {}),
        ...(replySchema !== undefined ? { content: { 'application/json': { schema: replySchema } } } : {}),
      },
    };
    for (const status of route.reply.also ?? []) responses[status] = { ...responses[route.reply.status], description: 'not ready' };
    for (const status of route.errors) responses[status] = { description: 'error', content: { 'application/json': { schema: refTo('Error') } } };
    (paths[route.path] ??= {})[route.method] = {
      operationId: route.operationId,
      summary: route.summary,
      ...(route.public === true ? { security: [] } : {}),
      parameters: [
        ...parameters('path', converted[`r${index}Params`]),
        ...parameters('query', converted[`r${index}Query`]),
        ...parameters('header', converted[`r${index}Headers`]),
      ],
      ...(route.body === undefined ? {} : { requestBody: { required: true, content: { 'application/json': { schema: converted[`r${index}Body`] } } } }),
      responses,
    };
  });
  const schemas = { ...Object.fromEntries(Object.entries(converted).filter(([id]) => !/^r\d+/.test(id))), JsonValue: jsonValue };
  return {
    openapi: '3.1.0',
    info: { title: 'troupe', version, description: 'HTTP API of a troupe society. Errors are `{ error: { code, message, field } }`.' },
    // Relative: the server this document was fetched from, whatever address it listens on.
    servers: [{ url: '/', description: 'the server that served this document' }],
    components: { schemas, securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'TROUPE_TOKEN, when the server has one' } } },
    security: [{ bearer: [] }],
    paths,
  };
}
