// Generated from the OpenAPI document by openapi-typescript: do not edit (npx tsx scripts/openapiTypes.ts).
export interface paths {
  '/api/submit': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Give the root agent a requirement */
    post: operations['submit'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/send': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Send the user's message to an agent */
    post: operations['send'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/messages/{taskId}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Messages of a session (every task tree in it; a new session is named by its first task), in order (what reached the user by default) */
    get: operations['getMessages'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/agents': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** A page of the agents of the organisation, oldest first, optionally by status */
    get: operations['listAgents'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/agents/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One agent */
    get: operations['getAgent'];
    put?: never;
    post?: never;
    /** Terminate an agent and its descendants as the user: a top-level agent other than root, or a top-level agent's child (e.g. a child of root whose parent's turn ended without terminating it); one the user terminated before answers as the first time */
    delete: operations['terminateAgent'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/tasks/{taskId}/cancel': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Cancel a task an agent is working on or has queued (`rt.cancel`): its turn stops where it is, what it delegated is taken back, and it is answered `canceled`; 404 `unknown_task` when no agent holds it */
    post: operations['cancelTask'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/agents/{id}/memory': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** What an agent remembers: counts of L1–L4, and a page of one tier (`tier`) or the L4 facts closest to `q`, of one session when `sessionId` is given; a terminated agent's from the data dir */
    get: operations['getAgentMemory'];
    put?: never;
    /** Put facts and conversation turns into a live agent's long-term memory, in order (`rt.importMemory`): every item is checked first, and one bad item refuses them all, naming each (`items[4].speaker`); turns are stored as said, never merged */
    post: operations['importAgentMemory'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/agents/{id}/memory/facts/{factId}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    /** Remove a fact from a live agent's long-term memory (`rt.forget`); 404 `unknown_fact` when it holds none of that id (saying which fact holds one merged away) */
    delete: operations['forgetAgentFact'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/agents/{id}/graph/nodes': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The newest nodes (events and notes) of an agent's graph memory, or of the society's with id `society` (`rt.graph`); archived events only with `includeArchived=true`; a terminated agent's from the data dir */
    get: operations['listGraphNodes'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/agents/{id}/graph/nodes/{nodeId}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** A node of an agent's graph memory (or the society's, id `society`) with its neighbourhood to `depth` links (2 by default) and the edges among them, with their types (`rt.graph`); 404 `unknown_node` when the graph holds none of that id */
    get: operations['getGraphNode'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/artifacts/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** An artifact a tool call stored (ids are listed with a session's messages): its content, with the artifact's own Content-Type and Content-Length; 404 `unknown_artifact` when never stored or evicted */
    get: operations['getArtifact'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/skills': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The skills loaded, with their triggers (not their bodies), the skills refused at start, and with `match` the skills a Task of that text would activate and why */
    get: operations['listSkills'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/approvals': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The tool calls waiting for a person's approval, oldest first (of one agent with `agentId`); arguments redacted, `digest` that of the real ones */
    get: operations['listApprovals'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/approvals/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One approval, waiting or decided, while its tool call is not over; 404 `unknown_approval` otherwise */
    get: operations['getApproval'];
    put?: never;
    /** Decide a tool call waiting for approval (`rt.decide`): approve, reject (with a message the model reads) or edit (arguments checked against the tool's schema); 409 `conflict` when decided already or `digest` is not the waiting call's, 404 `unknown_approval` */
    post: operations['decideApproval'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/machines/agent': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The agent machine's statechart, flat: its states by dotted path (as an agent's `state` names them) and each state's transitions */
    get: operations['getAgentMachine'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ui': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The web dashboard, an HTML page (no token needed: the page asks for it and its API calls carry it) */
    get: operations['dashboard'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/roles': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Every role */
    get: operations['listRoles'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/events': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Live bus Tasks as Server-Sent Events (`event: task`, redacted JSON), approvals waiting or decided (`event: approval`, `{ type: "waiting" | "decided", approval }`), and `event: reset` when Last-Event-ID is too old or from before a restart */
    get: operations['streamEvents'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/mcp': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** The society as an MCP server (Streamable HTTP, stateless: no session id): one JSON-RPC message per request, answered as JSON or as an event stream while a tool call works (docs/mcp-server.md); the MCP SDK answers protocol errors in JSON-RPC */
    post: operations['mcp'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/metrics': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The runtime's and the server's metrics in the Prometheus text format (docs/observability.md) */
    get: operations['getMetrics'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/openapi.json': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** This document */
    get: operations['getOpenApiDocument'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/health': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Liveness (no token needed) */
    get: operations['health'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ready': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Readiness: 200 while the runtime takes work with every restored agent started; 503 while restoring (the API already works), draining or stopped (no token needed) */
    get: operations['ready'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
}
export type webhooks = Record<string, never>;
export interface components {
  schemas: {
    /** @description Any JSON value */
    JsonValue:
      | string
      | number
      | boolean
      | null
      | unknown[]
      | {
          [key: string]: unknown;
        };
    Task: {
      id: string;
      sessionId: string;
      parentId: string | null;
      from: string;
      to: string;
      action: string;
      /** @enum {string} */
      status: 'submitted' | 'working' | 'input-required' | 'completed' | 'canceled' | 'failed' | 'rejected';
      parameters: {
        [key: string]: components['schemas']['JsonValue'];
      };
      result: components['schemas']['JsonValue'] | null;
      error: {
        /** @enum {string} */
        code:
          | 'invalid_input'
          | 'user_to_user'
          | 'unknown_agent'
          | 'agent_terminated'
          | 'not_parent'
          | 'agent_limit'
          | 'children_limit'
          | 'spawn_depth_limit'
          | 'intake_closed'
          | 'duplicate_request'
          | 'request_timeout'
          | 'aborted'
          | 'mailbox_full'
          | 'memory_behind'
          | 'step_limit'
          | 'repeat_guard'
          | 'tool_call_limit'
          | 'interceptor_stopped'
          | 'guardrail_tripped'
          | 'approval_rejected'
          | 'conflict'
          | 'unknown_approval'
          | 'approval_limit'
          | 'handoff_limit'
          | 'token_budget'
          | 'time_budget'
          | 'model_queue_full'
          | 'store_behind'
          | 'model_error'
          | 'unknown_tool'
          | 'tool_timeout'
          | 'tool_error'
          | 'no_route'
          | 'unauthorized'
          | 'origin_not_allowed'
          | 'route_not_found'
          | 'unknown_task'
          | 'malformed_json'
          | 'body_too_large'
          | 'unsupported_media_type'
          | 'bad_request'
          | 'method_not_allowed'
          | 'url_too_long'
          | 'headers_too_large'
          | 'client_timeout'
          | 'too_many_streams'
          | 'store_damaged'
          | 'native_addon_missing'
          | 'memory_full'
          | 'embedder_mismatch'
          | 'unknown_fact'
          | 'unknown_node'
          | 'unknown_artifact'
          | 'artifact_limit'
          | 'task_too_large'
          | 'transport_full'
          | 'transport_unavailable'
          | 'agent_unreachable'
          | 'recording_limit'
          | 'replay_diverged'
          | 'internal';
        message: string;
      } | null;
      metadata: {
        importance?: number;
        usage?: {
          promptTokens: number;
          completionTokens: number;
        };
      } & {
        [key: string]: components['schemas']['JsonValue'];
      };
      createdAt: number;
    };
    Agent: {
      id: string;
      roleId: string;
      roleName: string;
      /** @enum {string} */
      status: 'active' | 'terminated';
      parentAgentId: string | null;
      state: string;
      queued: number;
      lanes: number;
      createdAt: number;
      terminatedAt: number | null;
    };
    Approval: {
      /** @constant */
      v: 1;
      id: string;
      agentId: string;
      role: string;
      taskId: string;
      sessionId: string;
      toolCallId: string;
      tool: string;
      arguments: string;
      digest: string;
      annotations: {
        readOnly: boolean;
        destructive: boolean;
        idempotent: boolean;
        openWorld: boolean;
      };
      /** @enum {string} */
      reason: 'tool' | 'policy' | 'mcp';
      requestedAt: number;
      expiresAt: number;
      /** @enum {string} */
      status: 'pending' | 'approved' | 'rejected' | 'expired' | 'started';
      decision: {
        /** @enum {string} */
        action: 'approve' | 'reject' | 'edit';
        at: number;
        by?: string;
        message?: string;
        arguments?: string;
      } | null;
    };
    Error: {
      error: {
        /** @enum {string} */
        code:
          | 'invalid_input'
          | 'user_to_user'
          | 'unknown_agent'
          | 'agent_terminated'
          | 'not_parent'
          | 'agent_limit'
          | 'children_limit'
          | 'spawn_depth_limit'
          | 'intake_closed'
          | 'duplicate_request'
          | 'request_timeout'
          | 'aborted'
          | 'mailbox_full'
          | 'memory_behind'
          | 'step_limit'
          | 'repeat_guard'
          | 'tool_call_limit'
          | 'interceptor_stopped'
          | 'guardrail_tripped'
          | 'approval_rejected'
          | 'conflict'
          | 'unknown_approval'
          | 'approval_limit'
          | 'handoff_limit'
          | 'token_budget'
          | 'time_budget'
          | 'model_queue_full'
          | 'store_behind'
          | 'model_error'
          | 'unknown_tool'
          | 'tool_timeout'
          | 'tool_error'
          | 'no_route'
          | 'unauthorized'
          | 'origin_not_allowed'
          | 'route_not_found'
          | 'unknown_task'
          | 'malformed_json'
          | 'body_too_large'
          | 'unsupported_media_type'
          | 'bad_request'
          | 'method_not_allowed'
          | 'url_too_long'
          | 'headers_too_large'
          | 'client_timeout'
          | 'too_many_streams'
          | 'store_damaged'
          | 'native_addon_missing'
          | 'memory_full'
          | 'embedder_mismatch'
          | 'unknown_fact'
          | 'unknown_node'
          | 'unknown_artifact'
          | 'artifact_limit'
          | 'task_too_large'
          | 'transport_full'
          | 'transport_unavailable'
          | 'agent_unreachable'
          | 'recording_limit'
          | 'replay_diverged'
          | 'internal';
        message: string;
        field: string | null;
      };
    };
  };
  responses: never;
  parameters: never;
  requestBodies: never;
  headers: never;
  pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
  submit: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          text: string;
          /** @description the session to continue; absent: a new session, whose id is the id of its first Task */
          sessionId?: string;
        };
      };
    };
    responses: {
      /** @description success */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            taskId: string;
            sessionId: string;
          };
        };
      };
      /** @description error */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  send: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          agentId: string;
          text: string;
          taskId?: string;
          /** @description the session to continue; absent: a new session, whose id is the id of its first Task */
          sessionId?: string;
        };
      };
    };
    responses: {
      /** @description success */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            messageId: string;
            sessionId: string;
          };
        };
      };
      /** @description error */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getMessages: {
    parameters: {
      query?: {
        offset?: number;
        limit?: number;
        scope?: 'user' | 'all';
      };
      header?: never;
      path: {
        taskId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            taskId: string;
            total: number;
            offset: number;
            messages: components['schemas']['Task'][];
            artifacts: {
              id: string;
              name: string;
              mediaType: string;
              size: number;
              taskId: string;
              sessionId: string;
              createdAt: number;
            }[];
            /** @enum {string} */
            source: 'store' | 'memory';
          };
        };
      };
      /** @description error */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  listAgents: {
    parameters: {
      query?: {
        offset?: number;
        limit?: number;
        status?: 'active' | 'terminated';
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            total: number;
            offset: number;
            agents: components['schemas']['Agent'][];
            /** @enum {string} */
            source: 'store' | 'memory';
          };
        };
      };
      /** @description error */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getAgent: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Agent'];
        };
      };
      /** @description error */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  terminateAgent: {
    parameters: {
      query?: {
        mode?: 'drain' | 'abort';
        reason?: string;
      };
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            agentId: string;
            /** @constant */
            terminated: true;
            /** @enum {string} */
            mode: 'drain' | 'abort';
          };
        };
      };
      /** @description error */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  cancelTask: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        taskId: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          reason?: string;
        };
      };
    };
    responses: {
      /** @description success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            taskId: string;
            /** @constant */
            canceled: true;
          };
        };
      };
      /** @description error */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getAgentMemory: {
    parameters: {
      query?: {
        tier?: 'l1' | 'l2' | 'l3' | 'l4';
        sessionId?: string;
        offset?: number;
        limit?: number;
        q?: string;
        k?: number;
      };
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            agentId: string;
            /** @enum {string} */
            source: 'live' | 'store';
            sessionId: string | null;
            counts: {
              l1: number;
              l2: number;
              l3: number;
              l4: number;
            };
            tier: ('l1' | 'l2' | 'l3' | 'l4') | null;
            search: {
              text: string;
              k: number;
            } | null;
            total: number;
            offset: number;
            entries: (
              | {
                  /** @enum {string} */
                  tier: 'l1' | 'l2';
                  seq: number;
                  id: string;
                  from: string;
                  to: string;
                  action: string;
                  status: string;
                  sessionId: string;
                  importance: number;
                  retrievals: number;
                  createdAt: number;
                  text: string;
                }
              | {
                  /** @constant */
                  tier: 'l3';
                  seq: number;
                  sessionId: string;
                  importance: number;
                  retrievals: number;
                  createdAt: number;
                  text: string;
                  taskIds: string[];
                  /** @enum {string} */
                  source: 'model' | 'extractive';
                }
              | {
                  /** @constant */
                  tier: 'l4';
                  id: string;
                  /** @enum {string} */
                  scope: 'session' | 'agent';
                  sessionId: string | null;
                  importance: number;
                  retrievals: number;
                  createdAt: number;
                  text: string;
                  merged: number;
                  fidelity: number | null;
                  similarity: number | null;
                  channels: {
                    bm25: number | null;
                    vector: number | null;
                    graph: number | null;
                  } | null;
                  node?: {
                    /** @enum {string} */
                    kind: 'event' | 'note';
                  };
                  metadata?: {
                    [key: string]: components['schemas']['JsonValue'];
                  };
                }
            )[];
          };
        };
      };
      /** @description error */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  importAgentMemory: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          items: (
            | {
                text: string;
                sessionId?: string;
                /** @enum {string} */
                scope?: 'session' | 'agent';
                /** @default 0.7 */
                importance?: number;
                metadata?: {
                  [key: string]: components['schemas']['JsonValue'];
                };
                /** @constant */
                kind?: 'fact';
              }
            | {
                /** @constant */
                kind: 'turn';
                speaker: string;
                text: string;
                at?: number | string;
                conversation?: string;
                sessionId?: string;
                /** @enum {string} */
                scope?: 'session' | 'agent';
                /** @default 0.5 */
                importance?: number;
                metadata?: {
                  [key: string]: components['schemas']['JsonValue'];
                };
              }
          )[];
        };
      };
    };
    responses: {
      /** @description success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            stored: number;
            merged: number;
            facts: {
              id: string;
              text: string;
              /** @enum {string} */
              scope: 'session' | 'agent';
              sessionId: string | null;
              importance: number;
              metadata?: {
                [key: string]: components['schemas']['JsonValue'];
              };
              merged: boolean;
              item: number;
            }[];
          };
        };
      };
      /** @description error */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  forgetAgentFact: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
        factId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            agentId: string;
            forgotten: string;
          };
        };
      };
      /** @description error */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  listGraphNodes: {
    parameters: {
      query?: {
        limit?: number;
        includeArchived?: 'true' | 'false';
        sessionId?: string;
      };
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            ownerId: string;
            /** @enum {string} */
            source: 'live' | 'store';
            nodeId: string | null;
            depth: number | null;
            sessionId: string | null;
            counts: {
              nodes: number;
              edges: number;
            };
            total: number;
            truncated: boolean;
            nodes: {
              node:
                | {
                    /** @constant */
                    kind: 'event';
                    id: string;
                    content: string;
                    createdAt: number;
                    updatedAt: number;
                    metadata: {
                      [key: string]: components['schemas']['JsonValue'];
                    };
                    sessionId: string | null;
                    /** @enum {string} */
                    status: 'pending' | 'in_progress' | 'done' | 'archived';
                    dueAt: number | null;
                    priority: number;
                  }
                | {
                    /** @constant */
                    kind: 'note';
                    id: string;
                    content: string;
                    createdAt: number;
                    updatedAt: number;
                    metadata: {
                      [key: string]: components['schemas']['JsonValue'];
                    };
                    sessionId: string | null;
                    title: string;
                    tags: string[];
                    source: string | null;
                  };
              distance: number | null;
            }[];
            edges: {
              from: string;
              to: string;
              /** @enum {string} */
              type: 'depends_on' | 'part_of' | 'references' | 'produces';
              weight: number;
              createdAt: number;
            }[];
          };
        };
      };
      /** @description error */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getGraphNode: {
    parameters: {
      query?: {
        limit?: number;
        includeArchived?: 'true' | 'false';
        sessionId?: string;
        depth?: number;
      };
      header?: never;
      path: {
        id: string;
        nodeId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            ownerId: string;
            /** @enum {string} */
            source: 'live' | 'store';
            nodeId: string | null;
            depth: number | null;
            sessionId: string | null;
            counts: {
              nodes: number;
              edges: number;
            };
            total: number;
            truncated: boolean;
            nodes: {
              node:
                | {
                    /** @constant */
                    kind: 'event';
                    id: string;
                    content: string;
                    createdAt: number;
                    updatedAt: number;
                    metadata: {
                      [key: string]: components['schemas']['JsonValue'];
                    };
                    sessionId: string | null;
                    /** @enum {string} */
                    status: 'pending' | 'in_progress' | 'done' | 'archived';
                    dueAt: number | null;
                    priority: number;
                  }
                | {
                    /** @constant */
                    kind: 'note';
                    id: string;
                    content: string;
                    createdAt: number;
                    updatedAt: number;
                    metadata: {
                      [key: string]: components['schemas']['JsonValue'];
                    };
                    sessionId: string | null;
                    title: string;
                    tags: string[];
                    source: string | null;
                  };
              distance: number | null;
            }[];
            edges: {
              from: string;
              to: string;
              /** @enum {string} */
              type: 'depends_on' | 'part_of' | 'references' | 'produces';
              weight: number;
              createdAt: number;
            }[];
          };
        };
      };
      /** @description error */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getArtifact: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          '*/*': string;
        };
      };
      /** @description error */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  listSkills: {
    parameters: {
      query?: {
        match?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            skills: {
              name: string;
              description: string;
              triggers: {
                keywords: string[];
                patterns: string[];
                semantic?: string;
              };
              steps: number;
              allowedTools?: string[];
            }[];
            problems: {
              file: string;
              field: string;
              rule: string;
            }[];
            matches?: {
              skill: string;
              /** @enum {string} */
              by: 'keyword' | 'pattern' | 'semantic';
              score: number;
            }[];
          };
        };
      };
      /** @description error */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  listApprovals: {
    parameters: {
      query?: {
        agentId?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            approvals: components['schemas']['Approval'][];
          };
        };
      };
      /** @description error */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getApproval: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Approval'];
        };
      };
      /** @description error */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  decideApproval: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json':
          | {
              /** @constant */
              action: 'approve';
              digest?: string;
              by?: string;
            }
          | {
              /** @constant */
              action: 'reject';
              message?: string;
              digest?: string;
              by?: string;
            }
          | {
              /** @constant */
              action: 'edit';
              arguments: {
                [key: string]: components['schemas']['JsonValue'];
              };
              digest?: string;
              by?: string;
            };
      };
    };
    responses: {
      /** @description success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Approval'];
        };
      };
      /** @description error */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getAgentMachine: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            machine: string;
            initial: string | null;
            states: {
              path: string;
              /** @enum {string} */
              type: 'atomic' | 'compound' | 'parallel' | 'final' | 'history';
              parent: string | null;
              initial: string | null;
            }[];
            transitions: {
              source: string;
              event: string;
              targets: string[];
              guard: string | null;
            }[];
          };
        };
      };
      /** @description error */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  dashboard: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': string;
        };
      };
    };
  };
  listRoles: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            roles: {
              id: string;
              name: string;
              prompt: string;
              createdBy: string;
              createdAt: number;
              handoffs?: string[];
            }[];
          };
        };
      };
      /** @description error */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  streamEvents: {
    parameters: {
      query?: {
        taskId?: string;
        agent?: string;
        action?: string;
        access_token?: string;
      };
      header?: {
        'Last-Event-ID'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/event-stream': string;
        };
      };
      /** @description error */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  mcp: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** @constant */
          jsonrpc: '2.0';
          method?: string;
        } & {
          [key: string]: unknown;
        };
      };
    };
    responses: {
      /** @description success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @constant */
            jsonrpc: '2.0';
          } & {
            [key: string]: unknown;
          };
        };
      };
      /** @description error */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description error */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getMetrics: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/plain': string;
        };
      };
      /** @description error */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getOpenApiDocument: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            openapi: string;
          } & {
            [key: string]: unknown;
          };
        };
      };
      /** @description error */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  health: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @constant */
            status: 'ok';
          };
        };
      };
    };
  };
  ready: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            ready: boolean;
            state: string;
            restore?: {
              agents: number;
              restored: number;
              tasks: number;
            };
          };
        };
      };
      /** @description not ready */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            ready: boolean;
            state: string;
            restore?: {
              agents: number;
              restored: number;
              tasks: number;
            };
          };
        };
      };
    };
  };
}
