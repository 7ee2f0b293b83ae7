import { z } from 'zod';
import { parseOrThrow } from '../task/index.js';
import type { ModelClient } from './modelClient.js';
import { OfflineModel } from './offlineModel.js';
import { OpenAIModel } from './openaiModel.js';

/** The environment variables that choose a model. */
const ModelEnvSchema = z.object({
  OPENAI_API_KEY: z.string().trim().min(1).optional(),
  OPENAI_BASE_URL: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL such as http://localhost:11434/v1' }).optional(),
  TROUPE_MODEL: z.string().trim().min(1).optional(),
  TROUPE_EMBEDDING_MODEL: z.string().trim().min(1).optional(),
  TROUPE_MODEL_TIMEOUT_MS: z.coerce.number().int().positive().optional(),
  TROUPE_OFFLINE_DELAY_MS: z.coerce.number().nonnegative().optional(),
});

const defaultModelName = 'gpt-4o-mini';

/**
 * An OpenAI-compatible model when `OPENAI_API_KEY` or `OPENAI_BASE_URL` is set (local servers
 * need no key), the offline scripted model otherwise. Malformed values throw a ValidationError
 * naming the variable.
 */
export function modelFromEnv(env: Readonly<Record<string, string | undefined>>): ModelClient {
  const blankToUndefined = Object.fromEntries(Object.keys(ModelEnvSchema.shape).map((key) => [key, env[key]?.trim() === '' ? undefined : env[key]]));
  const settings = parseOrThrow(ModelEnvSchema, blankToUndefined);
  if (settings.OPENAI_API_KEY === undefined && settings.OPENAI_BASE_URL === undefined) {
    return new OfflineModel({ chunkDelayMs: settings.TROUPE_OFFLINE_DELAY_MS ?? 0 });
  }
  return new OpenAIModel({
    model: settings.TROUPE_MODEL ?? defaultModelName,
    ...(settings.OPENAI_API_KEY === undefined ? {} : { apiKey: settings.OPENAI_API_KEY }),
    ...(settings.OPENAI_BASE_URL === undefined ? {} : { baseURL: settings.OPENAI_BASE_URL }),
    ...(settings.TROUPE_EMBEDDING_MODEL === undefined ? {} : { embeddingModel: settings.TROUPE_EMBEDDING_MODEL }),
    ...(settings.TROUPE_MODEL_TIMEOUT_MS === undefined ? {} : { timeoutMs: settings.TROUPE_MODEL_TIMEOUT_MS }),
  });
}
