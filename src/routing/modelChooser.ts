import { type ModelClient, collectReply } from '../llm/index.js';
import type { RoutingChooser } from './hybridRouter.js';

/** The most a chooser's reply may be: a name, or `none`. */
const maxReplyTokens = 40;

/**
 * A chooser that asks `model` to name the candidate that fits a request best, or `none`. A
 * scripted model (offline) is never asked: it would answer by its script, not by the request,
 * so with one this gives null (no choice) and the router refuses as without a chooser.
 */
export function modelChooser(model: ModelClient): RoutingChooser {
  return async (request, candidates, signal) => {
    if (model.scripted || candidates.length === 0) return null;
    const listing = candidates.map((candidate) => `- ${candidate.name}`).join('\n');
    const reply = await collectReply(
      model.chat(
        {
          messages: [
            {
              role: 'system',
              content:
                "You route work to the one candidate best able to do it. Answer with the candidate's name exactly as listed, " +
                'or with the single word none when no candidate fits. Answer with nothing else.',
            },
            { role: 'user', content: `Work: ${request}\n\nCandidates:\n${listing}` },
          ],
          tools: [],
          maxTokens: maxReplyTokens,
        },
        signal === undefined ? {} : { signal },
      ),
    );
    const answer = reply.message.content.trim().replace(/^["'`]|["'`.]$/g, '');
    return candidates.find((candidate) => candidate.name === answer || candidate.id === answer)?.id ?? null;
  };
}
