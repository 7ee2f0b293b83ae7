import { InvalidArgumentError } from 'commander';

/** A commander parser for a whole-number flag of at least `min`; anything else is refused naming the flag (exit 2). */
export function integerAtLeast(name: string, min: number): (value: string) => number {
  return (value) => {
    const parsed = Number(value);
    if (value.trim() === '' || !Number.isSafeInteger(parsed) || parsed < min) {
      throw new InvalidArgumentError(`${name} must be an integer ≥ ${min}, got "${value}"`);
    }
    return parsed;
  };
}
