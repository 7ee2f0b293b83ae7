import { AgentCard, type AgentSkill, type SecurityScheme } from '@a2a-js/sdk';
import type { Runtime } from '../runtime/index.js';
import { troupeVersion } from '../version.js';

/** The protocol versions served: v1.0, and v0.3 through the SDK's compatibility layer. */
const a2aVersions = ['1.0', '0.3'] as const;

/** The agent a card describes: the society, as one agent. */
export const agentName = 'troupe';

/** The name of the security scheme a card names when the service has a token. */
const bearerScheme = 'bearer';

export interface CardInput {
  /** The JSON-RPC endpoint's absolute URL, e.g. `http://127.0.0.1:3000/a2a`. */
  readonly url: string;
  /** Whether the service asks for `Authorization: Bearer <token>`. */
  readonly auth: boolean;
  /** Skills listed at most (roles first, then loaded skills). */
  readonly maxSkills: number;
}

const skill = (id: string, name: string, description: string, tags: string[]): AgentSkill => ({
  id,
  name,
  description,
  tags,
  examples: [],
  inputModes: [],
  outputModes: [],
  securityRequirements: [],
});

/**
 * The agent card of a runtime: one agent (its root) whose skills are the society's roles (what
 * its agents can be given) and its loaded Agent Skills, read when the card is asked for, so a
 * role created since is listed. The security scheme is troupe's bearer token when one is set.
 */
export function agentCardOf(runtime: Runtime, input: CardInput): AgentCard {
  const roles = runtime.roles().map((role) => skill(`role:${role.name}`, role.name, role.description ?? firstLine(role.prompt), ['role']));
  const loaded = runtime.skills.registry.list().map((found) => skill(`skill:${found.name}`, found.name, found.description, ['skill']));
  const schemes: Record<string, SecurityScheme> = input.auth
    ? {
        [bearerScheme]: {
          scheme: { $case: 'httpAuthSecurityScheme', value: { description: 'troupe token (TROUPE_TOKEN)', scheme: 'Bearer', bearerFormat: '' } },
        },
      }
    : {};
  return {
    name: agentName,
    description: 'A troupe society of LLM agents: a requirement goes to its root agent, which may delegate it across the organisation.',
    supportedInterfaces: a2aVersions.map((protocolVersion) => ({ url: input.url, protocolBinding: 'JSONRPC', tenant: '', protocolVersion })),
    provider: undefined,
    version: troupeVersion(),
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: schemes,
    securityRequirements: input.auth ? [{ schemes: { [bearerScheme]: { list: [] } } }] : [],
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['text/plain', 'application/json'],
    skills: [...roles, ...loaded].slice(0, input.maxSkills),
    signatures: [],
  };
}

/** The card as JSON on the wire (the protocol's JSON form of its message). */
export function cardJson(card: AgentCard): unknown {
  return AgentCard.toJSON(card);
}

/**
 * The card in the shape a v0.3 client reads (the v0.3 `AgentCard`: `url`, `preferredTransport`,
 * `protocolVersion`, `security`, schemes with a `type`), its v0.3 interface as the endpoint, and
 * the v1.0 `supportedInterfaces` kept beside, as the official SDK's own servers send it: a v1.0
 * client that asked without saying its version still finds its interface.
 */
export function legacyCardJson(card: AgentCard): unknown {
  const legacy = card.supportedInterfaces.find((face) => face.protocolVersion.startsWith('0.'));
  const bearer = card.securitySchemes[bearerScheme]?.scheme;
  const schemes =
    bearer?.$case === 'httpAuthSecurityScheme' ? { [bearerScheme]: { type: 'http', scheme: bearer.value.scheme, description: bearer.value.description } } : {};
  return {
    protocolVersion: legacy?.protocolVersion ?? '0.3',
    name: card.name,
    description: card.description,
    version: card.version,
    url: legacy?.url ?? '',
    preferredTransport: legacy?.protocolBinding ?? 'JSONRPC',
    capabilities: { streaming: card.capabilities?.streaming ?? false, pushNotifications: card.capabilities?.pushNotifications ?? false },
    defaultInputModes: card.defaultInputModes,
    defaultOutputModes: card.defaultOutputModes,
    skills: card.skills.map(({ id, name, description, tags }) => ({ id, name, description, tags })),
    supportsAuthenticatedExtendedCard: false,
    ...(Object.keys(schemes).length === 0 ? {} : { securitySchemes: schemes, security: [{ [bearerScheme]: [] }] }),
    supportedInterfaces: card.supportedInterfaces,
  };
}

function firstLine(text: string): string {
  const line = text.trim().split('\n', 1)[0] ?? '';
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}
