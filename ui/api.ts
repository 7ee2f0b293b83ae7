// What the dashboard reads of the HTTP API (docs/http.md): only the fields it shows.

export interface AgentView {
  readonly id: string;
  readonly roleName: string;
  readonly status: 'active' | 'terminated';
  readonly parentAgentId: string | null;
  readonly state: string;
  readonly queued: number;
  readonly lanes: number;
  readonly createdAt: number;
}

export interface Task {
  readonly id: string;
  readonly sessionId: string;
  readonly parentId: string | null;
  readonly from: string;
  readonly to: string;
  readonly action: string;
  readonly status: string;
  readonly parameters: Readonly<Record<string, unknown>>;
  readonly result: unknown;
  readonly error: { readonly code: string; readonly message: string } | null;
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly createdAt: number;
}

export interface Approval {
  readonly id: string;
  readonly agentId: string;
  readonly taskId: string;
  readonly tool: string;
  readonly arguments: string;
  readonly digest: string;
  readonly status: string;
  readonly requestedAt: number;
}

export interface MachineDefinition {
  readonly machine: string;
  readonly initial: string | null;
  readonly states: readonly { readonly path: string; readonly type: string; readonly parent: string | null; readonly initial: string | null }[];
  readonly transitions: readonly { readonly source: string; readonly event: string; readonly targets: readonly string[]; readonly guard: string | null }[];
}

/** A reply that is not a success, with the API's error code when it sent one. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const tokenKey = 'troupe.token';

/**
 * The API with the token: entered once, kept in localStorage, sent as a bearer header (and on
 * the event stream as `access_token`, which an EventSource needs: it cannot send headers).
 */
export class Api {
  #token = localStorage.getItem(tokenKey) ?? '';

  get token(): string {
    return this.#token;
  }

  set token(token: string) {
    this.#token = token;
    localStorage.setItem(tokenKey, token);
  }

  eventsUrl(): string {
    return this.#token === '' ? '/api/events' : `/api/events?access_token=${encodeURIComponent(this.#token)}`;
  }

  async get<T>(path: string): Promise<T> {
    return this.#call<T>(path, { method: 'GET' });
  }

  async post<T>(path: string, body: unknown): Promise<T> {
    return this.#call<T>(path, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  }

  async #call<T>(path: string, init: RequestInit): Promise<T> {
    const headers = new Headers(init.headers);
    if (this.#token !== '') headers.set('authorization', `Bearer ${this.#token}`);
    const response = await fetch(path, { ...init, headers });
    const body = (await response.json()) as unknown;
    if (response.ok) return body as T;
    const error = (body as { error?: { code?: string; message?: string } } | null)?.error;
    throw new ApiError(response.status, error?.code ?? 'error', error?.message ?? `${String(response.status)} from ${path}`);
  }
}
