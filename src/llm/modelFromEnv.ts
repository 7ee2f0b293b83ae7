import { z } from 'zod';
import { parseOrThrow } from '../task/index.js';
import type { ModelClient } from './modelClient.js';
import { ModelLimitsSchema } from './modelLimits.js';
import { OfflineModel } from './offlineModel.js';
import { OpenAIEmbeddings } from './openaiEmbeddings.js';
import { OpenAIModel } from './openaiModel.js';

const limits = ModelLimitsSchema.shape;

/** A variable holding one of the model's limits: its text read as a number, checked by the limit's own schema. */
function fromText(limit: (typeof limits)[keyof typeof limits]) {
  return z.coerce.number().pipe(limit.unwrap()).optional();
}

/** The environment variables that choose a model. */
const ModelEnvSchema = z.object({
  OPENAI_API_KEY: z.string().trim().min(1).optional(),
  OPENAI_BASE_URL: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL such as http://localhost:11434/v1' }).optional(),
  TROUPE_MODEL: z.string().trim().min(1).optional(),
  TROUPE_EMBEDDING_MODEL: z.string().trim().min(1).optional(),
  TROUPE_EMBEDDING_DIMENSION: z.coerce.number().int().positive().max(65_536).optional(),
  TROUPE_MODEL_TIMEOUT_MS: fromText(limits.timeoutMs),
  TROUPE_MODEL_IDLE_TIMEOUT_MS: fromText(limits.idleTimeoutMs),
  TROUPE_MODEL_MAX_REPLY_BYTES: fromText(limits.maxReplyBytes),
  TROUPE_OFFLINE_DELAY_MS: z.coerce.number().nonnegative().optional(),
});

const defaultModelName = 'gpt-4o-mini';

/**
 * An OpenAI-compatible model when `OPENAI_API_KEY` or `OPENAI_BASE_URL` is set (local servers
 * need no key), the offline scripted model otherwise. Malformed values throw a ValidationError
 * naming the variable.
 */
export function modelFromEnv(env: Readonly<Record<string, string | undefined>>): ModelClient {
  const settings = readModelEnv(env);
  if (settings.OPENAI_API_KEY === undefined && settings.OPENAI_BASE_URL === undefined) {
    return new OfflineModel({ chunkDelayMs: settings.TROUPE_OFFLINE_DELAY_MS ?? 0 });
  }
  return new OpenAIModel({
    model: settings.TROUPE_MODEL ?? defaultModelName,
    ...(settings.OPENAI_API_KEY === undefined ? {} : { apiKey: settings.OPENAI_API_KEY }),
    ...(settings.OPENAI_BASE_URL === undefined ? {} : { baseURL: settings.OPENAI_BASE_URL }),
    ...(settings.TROUPE_EMBEDDING_MODEL === undefined ? {} : { embeddingModel: settings.TROUPE_EMBEDDING_MODEL }),
    ...(settings.TROUPE_MODEL_TIMEOUT_MS === undefined ? {} : { timeoutMs: settings.TROUPE_MODEL_TIMEOUT_MS }),
    ...(settings.TROUPE_MODEL_IDLE_TIMEOUT_MS === undefined ? {} : { idleTimeoutMs: settings.TROUPE_MODEL_IDLE_TIMEOUT_MS }),
    ...(settings.TROUPE_MODEL_MAX_REPLY_BYTES === undefined ? {} : { maxReplyBytes: settings.TROUPE_MODEL_MAX_REPLY_BYTES }),
  });
}

/** The variables of `ModelEnvSchema`, blank ones as unset; a malformed one throws a ValidationError naming it. */
function readModelEnv(env: Readonly<Record<string, string | undefined>>): z.infer<typeof ModelEnvSchema> {
  const blankToUndefined = Object.fromEntries(Object.keys(ModelEnvSchema.shape).map((key) => [key, env[key]?.trim() === '' ? undefined : env[key]]));
  return parseOrThrow(ModelEnvSchema, blankToUndefined);
}

/**
 * The embedder of agents' L4 memory from the environment: the endpoint's `/v1/embeddings` with
 * `TROUPE_EMBEDDING_MODEL` (and `TROUPE_EMBEDDING_DIMENSION` for a model other than OpenAI's
 * own), or `text-embedding-3-small` when talking to OpenAI itself with a key. Undefined (the
 * runtime's offline hashed n-gram embedder) with no endpoint, or a local one given no embedding
 * model: it may serve none.
 */
export function embeddingsFromEnv(env: Readonly<Record<string, string | undefined>>): OpenAIEmbeddings | undefined {
  const settings = readModelEnv(env);
  const endpoint = settings.OPENAI_API_KEY !== undefined || settings.OPENAI_BASE_URL !== undefined;
  const openAIItself = settings.OPENAI_BASE_URL === undefined && settings.OPENAI_API_KEY !== undefined;
  if (!endpoint || (settings.TROUPE_EMBEDDING_MODEL === undefined && !openAIItself)) return undefined;
  return new OpenAIEmbeddings({
    ...(settings.TROUPE_EMBEDDING_MODEL === undefined ? {} : { model: settings.TROUPE_EMBEDDING_MODEL }),
    ...(settings.TROUPE_EMBEDDING_DIMENSION === undefined ? {} : { dimension: settings.TROUPE_EMBEDDING_DIMENSION }),
    ...(settings.OPENAI_API_KEY === undefined ? {} : { apiKey: settings.OPENAI_API_KEY }),
    ...(settings.OPENAI_BASE_URL === undefined ? {} : { baseURL: settings.OPENAI_BASE_URL }),
    ...(settings.TROUPE_MODEL_TIMEOUT_MS === undefined ? {} : { timeoutMs: settings.TROUPE_MODEL_TIMEOUT_MS }),
    ...(settings.TROUPE_MODEL_MAX_REPLY_BYTES === undefined ? {} : { maxReplyBytes: settings.TROUPE_MODEL_MAX_REPLY_BYTES }),
  });
}
