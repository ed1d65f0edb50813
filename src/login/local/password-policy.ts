// Password policy (NIST SP 800-63B §3.1.1.2): a length range and a check against a list of commonly used passwords;
// no composition rules. The list is bundled (common-passwords.txt; see docs/identity.md for where it came from).
import { readFileSync } from 'node:fs';
import { GatehouseError } from '../../http/errors.ts';

let common: Set<string> | null = null;

function commonPasswords(): Set<string> {
  common ??= new Set(
    readFileSync(new URL('./common-passwords.txt', import.meta.url), 'utf8')
      .split('\n')
      .map((line) => line.trim().toLowerCase())
      .filter((line) => line !== '' && !line.startsWith('#')),
  );
  return common;
}

export interface PasswordRules {
  minLength: number;
  maxLength: number;
}

/** Throws weak_password (400) naming the problem; `subject` (the sign-in email) may not be reused as a password. */
export function assertPasswordAllowed(password: string, rules: PasswordRules, subject: string): void {
  const length = [...password].length;
  const problem =
    length < rules.minLength
      ? `must be at least ${rules.minLength} characters`
      : length > rules.maxLength
        ? `must be at most ${rules.maxLength} characters`
        : isCommon(password, subject)
          ? 'is too common or too easy to guess; choose another'
          : null;
  if (problem)
    throw new GatehouseError('weak_password', `The password ${problem}.`, { fields: [{ path: '/password', problem }] });
}

function isCommon(password: string, subject: string): boolean {
  const lower = password.toLowerCase();
  const list = commonPasswords();
  // Also catch a listed password with digits or symbols appended ("password2024!").
  const stem = lower.replace(/[\d\W_]+$/u, '');
  const local = subject.toLowerCase().split('@')[0] ?? '';
  return list.has(lower) || list.has(stem) || lower === subject.toLowerCase() || (local.length > 3 && stem === local);
}
