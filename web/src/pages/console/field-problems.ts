import type { ApiError } from '../../api.ts';

/**
 * The problems the API reported for one body field, as one line to show under its input. Paths name list items by
 * index (`body.redirect_uris.1`); `values` are the entries as sent, so the line can quote the one that is wrong.
 */
export function problemFor(error: ApiError | null, field: string, values: string[] = []): string | undefined {
  const prefix = `body.${field}`;
  const lines = (error?.fields ?? []).flatMap(({ path, problem }) => {
    if (path === prefix) return [problem];
    if (!path.startsWith(`${prefix}.`)) return [];
    const value = values[Number(path.slice(prefix.length + 1))];
    return [value === undefined ? problem : `${value}: ${problem}`];
  });
  return lines.length > 0 ? lines.join('; ') : undefined;
}
