import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { type ApiError, api } from '../api.ts';
import { asApiError, sentToSignIn, useAction } from './use-api.ts';

export interface PagedList<T> {
  /** Every row fetched so far; null until the first load. */
  items: T[] | null;
  error: ApiError | null;
  loading: boolean;
  /** Whether the server has rows after the last one fetched. */
  more: boolean;
  /** Appends the next page; its failure is in `moreError`, so the rows already shown stay. */
  loadMore: () => void;
  loadingMore: boolean;
  moreError: ApiError | null;
  reload: () => void;
}

/** `path` may carry its own query (the audit log's filters); the page parameters are added to it. */
const pageUrl = (path: string, limit: number | null, cursor: string | null) => {
  const query = new URLSearchParams();
  if (limit !== null) query.set('limit', String(limit));
  if (cursor) query.set('cursor', cursor);
  const text = query.toString();
  if (!text) return path;
  return `${path}${path.includes('?') ? '&' : '?'}${text}`;
};

/**
 * A keyset-paged admin list (`{[key]: rows, next_cursor}`, docs/oauth.md). With `all`, follows `next_cursor` to the
 * end, for a select that must offer every record. Otherwise shows the first page and `loadMore()` appends the next;
 * `reload()` (after a change) fetches from the start again as many rows as were shown, so the row just edited stays
 * on screen; a new `path` starts from one page. A 401 sends the browser to sign-in, as useApi does.
 */
export function usePagedList<T>(path: string, key: string, { all = false } = {}): PagedList<T> {
  const [items, setItems] = useState<T[] | null>(null);
  const [cursor, setCursor] = useState<string | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [loading, setLoading] = useState(true);
  const [generation, setGeneration] = useState(0);
  // The generation a "Show more" answer belongs to: one that arrives after a reload started is dropped.
  const current = useRef(0);
  current.current = generation;
  const shown = useRef(0);
  // The path `shown` counts rows of: another path (new filters) starts again from one page.
  const shownPath = useRef(path);
  const paging = useAction();
  const limit = all ? 100 : null;

  const fetchPage = useCallback(
    async (after: string | null) => {
      const page = await api<Record<string, unknown>>('GET', pageUrl(path, limit, after));
      return { rows: page[key] as T[], next: page.next_cursor as string | null };
    },
    [path, key, limit],
  );

  useEffect(() => {
    let live = true;
    const wanted = shownPath.current === path ? shown.current : 0;
    shownPath.current = path;
    setLoading(true);
    (async () => {
      const rows: T[] = [];
      let next: string | null = null;
      do {
        const page = await fetchPage(next);
        rows.push(...page.rows);
        next = page.next;
      } while (next && (all || rows.length < wanted));
      return { rows, next };
    })()
      .then(({ rows, next }) => {
        if (!live) return;
        shown.current = rows.length;
        setItems(rows);
        setCursor(next);
        setError(null);
        paging.clearError();
      })
      .catch((caught: unknown) => {
        if (!live || sentToSignIn(caught)) return;
        setError(asApiError(caught));
      })
      .finally(() => live && setLoading(false));
    return () => {
      live = false;
    };
  }, [fetchPage, path, all, generation]);

  const loadMore = async () => {
    if (!cursor || loading) return;
    const started = current.current;
    const page = await paging.run(async () => {
      try {
        return await fetchPage(cursor);
      } catch (caught) {
        if (sentToSignIn(caught)) return null;
        throw caught;
      }
    });
    if (!page || started !== current.current) return;
    setItems((rows) => {
      const grown = [...(rows ?? []), ...page.rows];
      shown.current = grown.length;
      return grown;
    });
    setCursor(page.next);
  };

  return {
    items,
    error,
    loading,
    more: cursor !== null,
    loadMore: () => void loadMore(),
    loadingMore: paging.busy,
    moreError: paging.error,
    reload: useCallback(() => setGeneration((g) => g + 1), []),
  };
}
