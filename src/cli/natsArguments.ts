import { InvalidArgumentError } from 'commander';
import { SocietyNameSchema } from '../bus/index.js';

/** A society's name, as its NATS subjects take it (`--society` of `serve` and `node`). */
export function societyName(value: string): string {
  const checked = SocietyNameSchema.safeParse(value);
  if (!checked.success) throw new InvalidArgumentError(`--society must be 1–64 letters, digits, "_" or "-", got "${value}"`);
  return checked.data;
}
