import type { FastifyInstance } from 'fastify';
import type { Runtime } from '../runtime/index.js';
import { type Redactor, parseOrThrow } from '../task/index.js';
import { HttpError } from './httpErrors.js';
import { ArtifactIdParamsSchema } from './schemas.js';

/** A text artifact's media type with its charset said, as it is sent (UTF-8). */
function textType(mediaType: string): string {
  return /;\s*charset=/i.test(mediaType) ? mediaType : `${mediaType}; charset=utf-8`;
}

/**
 * `GET /api/artifacts/:id`: an artifact's content, with its own media type and length. Text is
 * redacted as every text leaving the server is; bytes are sent as stored. An unknown id (never
 * stored, or evicted) is a 404 `unknown_artifact`; a damaged record a `store_damaged` naming it.
 */
export function registerArtifactRoute(app: FastifyInstance, runtime: Runtime, redactor: Redactor): void {
  app.get('/api/artifacts/:id', async (request, reply) => {
    const { id } = parseOrThrow(ArtifactIdParamsSchema, request.params);
    const artifact = runtime.artifact(id);
    if (artifact === undefined) throw new HttpError('unknown_artifact', `no artifact "${id}" (never stored, or evicted)`, { field: 'id' });
    const { content, ref } = artifact;
    const body =
      typeof content === 'string' ? Buffer.from(redactor.text(content), 'utf8') : Buffer.from(content.buffer, content.byteOffset, content.byteLength);
    return reply
      .type(typeof content === 'string' ? textType(ref.mediaType) : ref.mediaType)
      .header('content-length', body.byteLength)
      .header('content-disposition', `inline; filename*=UTF-8''${encodeURIComponent(ref.name)}`)
      .send(body);
  });
}
