import { z } from 'zod';

/** Most bytes a recording may hold (and a replay reads) unless `record.maxBytes` says otherwise. */
export const defaultRecordingMaxBytes = 100 * 1024 * 1024;

/** `createRuntime({ record })`: the file to record the run in, or the file and the most bytes it may hold. */
export const RecordOptionSchema = z.union([
  z.string().min(1),
  z.object({ file: z.string().min(1), maxBytes: z.number().int().positive().optional() }).strict(),
]);

export type RecordOption = z.input<typeof RecordOptionSchema>;
