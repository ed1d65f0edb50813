// Password policy for every new password (sign-up, reset, change, owner enrollment), per NIST SP 800-63B §3.1.1.2:
// a length range, then a strength estimate against breach-derived password lists, dictionary words, names,
// repetitions, sequences and keyboard walks, and the context-specific words an attacker would try first (the
// service, the organization, the person's email and name). No composition rules. The refusal says why, in words the
// person can act on.
import type { Config } from '../../config/schema.ts';
import { GatehouseError } from '../../http/errors.ts';
import { estimateStrength } from './password-strength.ts';

/** The service's own name: the first word a guesser tries against any of its accounts. */
export const SERVICE_NAME = 'gatehouse';

export type PasswordSettings = Pick<Config, 'passwords' | 'organization'>;

/** Who the password is for; every value becomes context words. */
export interface PasswordOwner {
  email: string;
  displayName?: string | null;
}

/** The request field the password came in, for the envelope: `body.password` labelled "Password" by default. */
export interface PasswordField {
  path: string;
  label: string;
}

const PASSWORD_FIELD: PasswordField = { path: 'body.password', label: 'Password' };

/**
 * Context words for `values`: each whole (lower-cased), its words of three characters or more, and those words
 * run together, so "Acme Robotics" also catches "acmerobotics" and "robotics".
 */
export function contextWords(values: (string | null | undefined)[]): string[] {
  const words = new Set<string>();
  for (const value of values) {
    const whole = (value ?? '').normalize('NFKC').toLowerCase().trim();
    if (!whole) continue;
    words.add(whole);
    const parts = whole.split(/[^\p{L}\p{N}]+/u).filter((part) => part.length >= 3);
    for (const part of parts) words.add(part);
    if (parts.length > 1) words.add(parts.join(''));
  }
  return [...words];
}

const localPart = (email: string) => email.slice(0, Math.max(0, email.lastIndexOf('@')));

/** "This is similar to a commonly used password." becomes "this is similar to a commonly used password". */
const clause = (sentence: string) => sentence.charAt(0).toLowerCase() + sentence.slice(1).replace(/\.$/, '');

/** What is wrong with the password and what to do, as one clause; null when it is allowed. */
async function problemOf(password: string, settings: PasswordSettings, owner: PasswordOwner): Promise<string | null> {
  const { min_length: min, max_length: max, minimum_score: minimumScore } = settings.passwords;
  // Characters, not UTF-16 units or bytes: "ééé" is three.
  const length = [...password].length;
  if (length < min) return `use at least ${min} characters`;
  if (length > max) return `use at most ${max} characters`;
  if (minimumScore === 0) return null;
  const context = contextWords([
    SERVICE_NAME,
    settings.organization.name,
    settings.organization.id,
    owner.email,
    localPart(owner.email),
    owner.displayName,
  ]);
  const strength = await estimateStrength(password, context);
  if (strength.score >= minimumScore) return null;
  // zxcvbn gives feedback only for its weakest scores; above them, say what helps most.
  const why = strength.warning ? clause(strength.warning) : 'this is too easy to guess';
  const advice = strength.suggestions.length > 0 ? strength.suggestions.map(clause) : ['add another word or two'];
  return [why, ...advice].join('; ');
}

/** Throws weak_password (400) naming the field and the problem, e.g. "Password: use at least 12 characters." */
export async function assertPasswordAllowed(
  password: string,
  settings: PasswordSettings,
  owner: PasswordOwner,
  field: PasswordField = PASSWORD_FIELD,
): Promise<void> {
  const problem = await problemOf(password, settings, owner);
  if (problem)
    throw new GatehouseError('weak_password', `${field.label}: ${problem}.`, {
      fields: [{ path: field.path, problem }],
    });
}
