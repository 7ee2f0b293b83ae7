import type { FastifyInstance } from 'fastify';
import type { Runtime } from '../runtime/index.js';
import { matchSummary, skillSummary } from '../skills/index.js';
import { parseOrThrow } from '../task/index.js';
import { responseSchema } from './responseSchema.js';
import { SkillsQuerySchema, SkillsReplySchema } from './schemas.js';

const skillsReply = responseSchema(SkillsReplySchema);

/**
 * `GET /api/skills`: the society's skills with their triggers (never their bodies), the skills
 * refused at start, and with `match` the skills a Task of that text would activate (`troupe skills
 * --match` for a running service). The list is bounded by `skillLimits.maxSkills`.
 */
export function registerSkillsRoute(app: FastifyInstance, runtime: Runtime): void {
  app.get('/api/skills', { schema: { response: { 200: skillsReply } } }, async (request) => {
    const { match } = parseOrThrow(SkillsQuerySchema, request.query);
    const { registry } = runtime.skills;
    const matches = match === undefined ? undefined : await registry.matcher().match(match);
    return {
      skills: registry.list().map(skillSummary),
      problems: runtime.skillProblems,
      ...(matches === undefined ? {} : { matches: matches.map(matchSummary) }),
    };
  });
}
