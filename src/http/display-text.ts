// Names shown to people (application, client and resource names, display names, the organization name) carry no
// character a reader cannot see. Bidirectional controls (UAX #9: U+061C, U+200E/F, U+202A-U+202E, U+2066-U+2069)
// reorder what follows them, so "moc.elgoog" can show as "google.com" on a consent page (CVE-2021-42574 is the same
// trick in source code); zero-width and other format characters (general category Cf: U+200B-U+200D, U+2060-U+2064,
// U+FEFF, U+00AD, tags) make two names that look alike compare different; control characters, line and paragraph
// separators and lone surrogates break the line or the text itself. One rule for every route that takes such a name.
import { InvalidRequest } from './errors.ts';

const HIDDEN = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/u;

const codePoint = (character: string) =>
  `U+${(character.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;

/**
 * `value` without the characters the rule refuses, for names we did not ask a person to type (an external
 * provider's): refusing those would refuse the sign-in, so they are removed instead.
 */
export const visibleText = (value: string): string => value.replace(new RegExp(HIDDEN.source, 'gu'), '');

/** What to change in `value` so people can read it as stored, or null when it may be shown as it is. */
export function displayTextProblem(value: string): string | null {
  const hidden = HIDDEN.exec(value)?.[0];
  if (hidden !== undefined)
    return `remove the invisible character ${codePoint(hidden)}; control, formatting and text-direction characters are not allowed`;
  if (value.trim() === '') return 'enter at least one visible character';
  return null;
}

/**
 * Throws invalid_request (400) naming the field, e.g. "Name: remove the invisible character U+202E; ..." with
 * `fields: [{ path, problem }]`. An absent value (a PATCH that leaves the name alone) passes.
 */
export function assertDisplayText(value: string | undefined, path: string, label = 'Name'): void {
  const problem = value === undefined ? null : displayTextProblem(value);
  if (problem) throw new InvalidRequest(`${label}: ${problem}.`, { fields: [{ path, problem }] });
}
