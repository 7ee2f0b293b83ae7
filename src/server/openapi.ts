import { z } from 'zod';
import { TaskSchema } from '../task/index.js';
import * as s from './schemas.js';

/** One route as the document describes it; the schemas are the same ones the handlers parse with. */
interface RouteDoc {
  readonly method: 'get' | 'post';
  readonly path: string;
  readonly summary: string;
  readonly params?: z.ZodObject;
  readonly query?: z.ZodObject;
  readonly body?: z.ZodType;
  readonly reply: { readonly status: number; readonly schema?: z.ZodType; readonly mediaType?: string };
  readonly errors: readonly number[];
  readonly public?: boolean;
}

const routes: readonly RouteDoc[] = [
  {
    method: 'post',
    path: '/api/submit',
    summary: 'Give the root agent a requirement',
    body: s.SubmitBodySchema,
    reply: { status: 201, schema: s.SubmitReplySchema },
    errors: [400, 401, 413, 415, 429, 503],
  },
  {
    method: 'post',
    path: '/api/send',
    summary: "Send the user's message to an agent",
    body: s.SendBodySchema,
    reply: { status: 201, schema: s.SendReplySchema },
    errors: [400, 401, 404, 409, 413, 415, 429, 503],
  },
  {
    method: 'get',
    path: '/api/messages/{taskId}',
    summary: 'Messages of a task tree, in order (what reached the user by default)',
    params: s.TaskIdParamsSchema,
    query: s.MessagesQuerySchema,
    reply: { status: 200, schema: s.MessagesReplySchema },
    errors: [400, 401, 404],
  },
  {
    method: 'get',
    path: '/api/agents',
    summary: 'A page of the agents of the organisation, oldest first, optionally by status',
    query: s.AgentsQuerySchema,
    reply: { status: 200, schema: s.AgentsReplySchema },
    errors: [400, 401],
  },
  {
    method: 'get',
    path: '/api/agents/{id}',
    summary: 'One agent',
    params: s.AgentIdParamsSchema,
    reply: { status: 200, schema: s.AgentSchema },
    errors: [400, 401, 404],
  },
  { method: 'get', path: '/api/roles', summary: 'Every role', reply: { status: 200, schema: s.RolesReplySchema }, errors: [401] },
  {
    method: 'get',
    path: '/api/events',
    summary: 'Live bus Tasks as Server-Sent Events (`event: task`, redacted JSON)',
    query: s.EventsQuerySchema,
    reply: { status: 200, mediaType: 'text/event-stream' },
    errors: [400, 401],
  },
  { method: 'get', path: '/openapi.json', summary: 'This document', reply: { status: 200 }, errors: [401] },
  { method: 'get', path: '/health', summary: 'Liveness (no token needed)', reply: { status: 200, schema: s.HealthReplySchema }, errors: [], public: true },
  {
    method: 'get',
    path: '/ready',
    summary: 'Readiness: 200 while the runtime takes work, 503 otherwise (no token needed)',
    reply: { status: 200, schema: s.ReadyReplySchema },
    errors: [503],
    public: true,
  },
];

/** Named component schemas; everything else is inlined where it is used. */
const components: Record<string, z.ZodType> = {
  Task: TaskSchema,
  Agent: s.AgentSchema,
  Error: s.ErrorBodySchema,
};

type JsonSchema = Record<string, unknown>;

/**
 * The component schemas and one schema per route part, converted by zod in one registry so
 * shared pieces become `$ref`s. zod puts recursive pieces (z.json) in a `__shared` entry with
 * `$defs`; they are lifted into the components so every `$ref` is a plain JSON pointer.
 */
function convert(parts: Record<string, z.ZodType>): Record<string, JsonSchema> {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries({ ...components, ...parts })) registry.add(schema, { id });
  const { schemas } = z.toJSONSchema(registry, { uri: (id) => `#/components/schemas/${id}`, io: 'input', unrepresentable: 'any' });
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

const refTo = (id: string): JsonSchema => ({ $ref: `#/components/schemas/${id}` });

function parameters(where: 'path' | 'query', schema: JsonSchema | undefined): JsonSchema[] {
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
    for (const status of route.errors) responses[status] = { description: 'error', content: { 'application/json': { schema: refTo('Error') } } };
    (paths[route.path] ??= {})[route.method] = {
      summary: route.summary,
      ...(route.public === true ? { security: [] } : {}),
      parameters: [...parameters('path', converted[`r${index}Params`]), ...parameters('query', converted[`r${index}Query`])],
      ...(route.body === undefined ? {} : { requestBody: { required: true, content: { 'application/json': { schema: converted[`r${index}Body`] } } } }),
      responses,
    };
  });
  const schemas = Object.fromEntries(Object.entries(converted).filter(([id]) => !/^r\d+/.test(id)));
  return {
    openapi: '3.1.0',
    info: { title: 'troupe', version, description: 'HTTP API of a troupe society. Errors are `{ error: { code, message, field } }`.' },
    components: { schemas, securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'TROUPE_TOKEN, when the server has one' } } },
    security: [{ bearer: [] }],
    paths,
  };
}
