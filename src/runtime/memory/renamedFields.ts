import { ValidationError } from '../../errors.js';

/**
 * Runs `use`, renaming the field of a ValidationError it throws when `names` has another name for
 * it: the fact store names what it was given (`fact.text`, `text`), while its caller's user wrote
 * the argument or query field of another name (`text`, `query`, `search`).
 */
export async function renamedFields<T>(use: () => Promise<T>, names: Readonly<Record<string, string>>): Promise<T> {
  try {
    return await use();
  } catch (error) {
    const name = error instanceof ValidationError ? names[error.field] : undefined;
    if (error instanceof ValidationError && name !== undefined) {
      throw new ValidationError(name, error.message.slice(error.field.length + 2), { cause: error });
    }
    throw error;
  }
}
