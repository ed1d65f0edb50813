import type { ApiError } from '../../api.ts';
import { fieldProblem } from '../../i18n/error-messages.ts';

// Problems arrive as sentences ("Enter a full address."); a few rules still send a fragment ("must use https"). Shown
// alone under the input, a problem starts with a capital and ends with a period; after the entry it is about, it
// continues that entry's line ("http://x: must use https.").
const sentence = (text: string) => `${text.charAt(0).toUpperCase()}${text.slice(1)}${/[.!?]$/.test(text) ? '' : '.'}`;
const lowerFirst = (text: string) => `${text.charAt(0).toLowerCase()}${text.slice(1)}`;

/**
 * The problems the API reported for one body field, as one line to show under its input. Paths name list items by
 * index (`body.redirect_uris.1`); `values` are the entries as sent, so the line can quote the one that is wrong.
 */
export function problemFor(error: ApiError | null, field: string, values: string[] = []): string | undefined {
  const prefix = `body.${field}`;
  const lines = (error?.fields ?? []).flatMap(({ path, problem }) => {
    if (path === prefix) return [sentence(fieldProblem(error as ApiError, problem))];
    if (!path.startsWith(`${prefix}.`)) return [];
    const value = values[Number(path.slice(prefix.length + 1))];
    const said = fieldProblem(error as ApiError, problem);
    return [value === undefined ? sentence(said) : `${value}: ${lowerFirst(sentence(said))}`];
  });
  return lines.length > 0 ? lines.join('; ') : undefined;
}
