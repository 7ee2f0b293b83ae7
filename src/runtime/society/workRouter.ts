import type { Embedder } from '../../memory/embedding/embedder.js';
import type { ModelClient } from '../../llm/index.js';
import type { Role } from '../../org/index.js';
import { HybridRouter, type RoutingCandidate, type RoutingDecision, modelChooser } from '../../routing/index.js';
import type { SkillRegistry } from '../../skills/index.js';
import type { RuntimeConfig } from '../config/config.js';
import type { RoleBook } from './roleBook.js';

/** The root role is the society's door for the user, never a destination for delegated work. */
const rootRoleName = 'root';

/**
 * Picks the role work described in words should go to: a role named exactly is taken as is;
 * any other text goes to the hybrid router over every role but root (name, description and
 * prompt as its text fields). The router is rebuilt when the roles change (roles are only ever
 * added), by the first request after the change.
 */
export class WorkRouter {
  #router: Promise<HybridRouter> | undefined;
  #builtFor = -1;

  constructor(
    private readonly deps: {
      readonly roles: RoleBook;
      readonly embedder: Embedder | null;
      readonly model: ModelClient;
      readonly settings: RuntimeConfig['routing'];
      /** The society's skills: a role that names the skills it may use is found by what they do too. */
      readonly skills?: SkillRegistry;
    },
  ) {}

  async decide(request: string, signal?: AbortSignal): Promise<RoutingDecision> {
    const named = this.deps.roles.find(request);
    if (named !== undefined && named.name !== rootRoleName) return exactly(request, named);
    return (await this.#current()).route(request, signal);
  }

  #current(): Promise<HybridRouter> {
    const { roles, embedder, model, settings } = this.deps;
    if (this.#router === undefined || this.#builtFor !== roles.size) {
      this.#builtFor = roles.size;
      const { askModel, ...options } = settings;
      const candidates = roles
        .list()
        .filter((role) => role.name !== rootRoleName)
        .map((role) => candidateOf(role, this.deps.skills));
      this.#router = HybridRouter.build(candidates, options, { embedder, chooser: askModel ? modelChooser(model) : null });
      // A build that failed is not kept: the next request tries again.
      this.#router.catch(() => {
        this.#router = undefined;
      });
    }
    return this.#router;
  }
}

/**
 * A role as the router scores it. Its skills count only when its policy names them (`skills.allow`):
 * a role that may use every skill would otherwise carry every skill's text, which tells no role apart.
 */
function candidateOf(role: Role, registry: SkillRegistry | undefined): RoutingCandidate {
  const policy = role.tools?.skills;
  const skills =
    policy?.allow === undefined || registry === undefined
      ? ''
      : registry
          .list(policy)
          .map((skill) => `${skill.name}: ${skill.description}`)
          .join('\n');
  return { id: role.id, name: role.name, fields: { name: role.name, description: role.description ?? '', prompt: role.prompt, skills } };
}

function exactly(request: string, role: Role): RoutingDecision {
  return {
    request,
    method: 'exact',
    chosen: { id: role.id, name: role.name },
    score: 1,
    threshold: 1,
    candidates: [{ id: role.id, name: role.name, keyword: 1, semantic: null, score: 1 }],
    reason: `the role named "${role.name}"`,
  };
}
