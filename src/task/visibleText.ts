import type { z } from 'zod';

/**
 * Bidirectional embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069): they change the
 * order in which the text around them shows, so a stored text can read otherwise than it is.
 */
const bidiControl = /[\u202A-\u202E\u2066-\u2069]/u;

/**
 * A text made only of what shows nothing: white space, default-ignorable code points (zero-width
 * spaces and joiners, fillers, variation selectors, format controls), other control characters
 * and the blank Braille pattern.
 */
const invisibleOnly = /^[\p{White_Space}\p{Default_Ignorable_Code_Point}\p{Cc}\u2800]*$/u;

/**
 * `schema`, also refusing a text with nothing visible in it and one with a bidirectional control
 * character: what a reader is shown of it would not be what it holds.
 */
export function visibleText(schema: z.ZodString): z.ZodString {
  return schema
    .refine((text) => !invisibleOnly.test(text), 'has no visible character (only white space, zero-width or other invisible characters)')
    .refine(
      (text) => !bidiControl.test(text),
      'contains a bidirectional control character (U+202A–U+202E or U+2066–U+2069), which shows text in another order than it is stored: write it without',
    );
}
