import { useCallback, useMemo, useState } from 'preact/hooks';
import type { ApiError } from '../api.ts';
import { useApi } from './use-api.ts';

export interface CursorPages<T> {
  /** The current page's rows; null until it loaded. */
  items: T[] | null;
  error: ApiError | null;
  loading: boolean;
  /** 1 for the newest page. */
  page: number;
  hasOlder: boolean;
  older: () => void;
  newer: () => void;
  /** Back to the first page, fetched again (records keep arriving). */
  first: () => void;
}

/**
 * One page of a keyset-paged admin list at a time (`{[key]: rows, next_cursor}`), for a long log where appending
 * pages would make the screen grow without end. The cursors of the pages before this one are kept, so "Newer"
 * goes back without asking the server how; a new `path` (other filters) starts again from the first page.
 */
export function useCursorPages<T>(path: string, key: string, limit: number): CursorPages<T> {
  const [state, setState] = useState<{ path: string; cursors: (string | null)[] }>({ path, cursors: [null] });
  const cursors = state.path === path ? state.cursors : [null];
  const cursor = cursors.at(-1) ?? null;
  const url = useMemo(() => {
    const query = new URLSearchParams({ limit: String(limit) });
    if (cursor) query.set('cursor', cursor);
    return `${path}${path.includes('?') ? '&' : '?'}${query}`;
  }, [path, limit, cursor]);
  const loaded = useApi<Record<string, unknown>>(url);
  // A page answered for an earlier URL is not shown as this one's.
  const data = loaded.loading ? null : loaded.data;
  const next = (data?.next_cursor as string | null | undefined) ?? null;
  const { reload } = loaded;
  return {
    items: data ? (data[key] as T[]) : null,
    error: loaded.error,
    loading: loaded.loading,
    page: cursors.length,
    hasOlder: next !== null,
    older: () => next && setState({ path, cursors: [...cursors, next] }),
    newer: () => cursors.length > 1 && setState({ path, cursors: cursors.slice(0, -1) }),
    first: useCallback(() => {
      setState({ path, cursors: [null] });
      reload();
    }, [path, reload]),
  };
}
