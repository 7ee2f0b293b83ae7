import { z } from 'zod';
import { TroupeError } from '../errors.js';

/**
 * What a tool does to the world, with the names and defaults of MCP's tool annotations
 * (`readOnlyHint`, `destructiveHint`, `idempotentHint`, `openWorldHint`): a tool that declares
 * nothing is taken to change things, destructively, not idempotently, reaching outside the
 * process. That is the safe reading for whoever relies on them (durability, approvals).
 */
export const ToolAnnotationsSchema = z
  .object({
    /** It changes nothing; default false. */
    readOnly: z.boolean().optional(),
    /** What it changes may be lost or overwritten (only meaningful when not read-only); default true unless read-only. */
    destructive: z.boolean().optional(),
    /** Calling it again with the same arguments changes nothing more; default false. */
    idempotent: z.boolean().optional(),
    /** It reaches things outside the society (the web, a file system, another service); default true. */
    openWorld: z.boolean().optional(),
  })
  .strict()
  .refine((annotations) => !(annotations.readOnly === true && annotations.destructive === true), {
    message: 'a read-only tool cannot be destructive',
    path: ['destructive'],
  });

/** What a tool declares about itself; every field optional (see `ToolAnnotationsSchema`). */
export type ToolAnnotations = z.input<typeof ToolAnnotationsSchema>;

/** A tool's annotations with every default filled in. */
export interface ResolvedToolAnnotations {
  readonly readOnly: boolean;
  readonly destructive: boolean;
  readonly idempotent: boolean;
  readonly openWorld: boolean;
}

/** What a tool that declares nothing is taken to do. */
const defaultToolAnnotations: ResolvedToolAnnotations = Object.freeze({ readOnly: false, destructive: true, idempotent: false, openWorld: true });

/** Fills in MCP's defaults; a read-only tool is never destructive. */
export function resolveToolAnnotations(annotations: ToolAnnotations | undefined): ResolvedToolAnnotations {
  if (annotations === undefined) return defaultToolAnnotations;
  const readOnly = annotations.readOnly ?? false;
  return Object.freeze({
    readOnly,
    destructive: readOnly ? false : (annotations.destructive ?? true),
    idempotent: annotations.idempotent ?? false,
    openWorld: annotations.openWorld ?? true,
  });
}

/** Checks a tool's declared annotations, refusing unknown fields and contradictions with `invalid_input` naming the tool and field. */
export function checkToolAnnotations(annotations: unknown, toolName: string): ToolAnnotations | undefined {
  if (annotations === undefined) return undefined;
  const parsed = ToolAnnotationsSchema.safeParse(annotations);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue?.path.join('.') ?? '';
  const unknownKeys = issue?.code === 'unrecognized_keys' ? ` (${issue.keys.join(', ')}; known: readOnly, destructive, idempotent, openWorld)` : '';
  throw new TroupeError('invalid_input', `tool "${toolName}": annotations${field === '' ? '' : `.${field}`}: ${issue?.message ?? 'invalid'}${unknownKeys}`);
}

/** The annotations durability and approvals read for a tool: what it declared, defaults filled in. */
export function toolAnnotations(tool: { readonly annotations?: ToolAnnotations | undefined }): ResolvedToolAnnotations {
  return resolveToolAnnotations(tool.annotations);
}
