import { InvalidArgumentError } from 'commander';
import { SocietyNameSchema } from '../bus/transports/natsSubjects.js';

/** A society's name, as its NATS subjects take it (`--society` of `serve` and `node`). */
export function societyName(value: string): string {
  const checked = SocietyNameSchema.safeParse(value);
  if (!checked.success) throw new InvalidArgumentError(`--society must be 1–64 letters, digits, "_" or "-", got "${value}"`);
  return checked.data;
}

/**
 * What a `--nats` URL carries that must never be printed: its password (`nats://user:password@…`),
 * or its token (`nats://token@…`). Redacted from everything the command prints, with the
 * environment's secrets.
 */
export function natsUrlSecrets(url: string): string[] {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return [];
  }
  const secret = parsed.password !== '' ? parsed.password : parsed.username;
  return secret === '' ? [] : [...new Set([secret, decodeURIComponent(secret)])];
}

/** Where a process finds its society on NATS, from `--nats`, `--society` and `--durable-mailboxes`. */
export interface NatsSociety {
  readonly url: string;
  readonly society: string;
  readonly durableMailboxes?: boolean;
}
