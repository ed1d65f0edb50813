import { useCallback, useEffect, useState } from 'preact/hooks';
import { ApiError, api } from '../api.ts';
import { pagePending } from '../second-step.ts';

export interface Loaded<T> {
  data: T | null;
  error: ApiError | null;
  loading: boolean;
  reload: () => void;
}

/**
 * On a 401 sends the browser to sign-in and back to this page, and says so; a session that waits for its second
 * step (403 second_factor_required or enrollment_required) goes through that step first.
 */
export function sentToSignIn(caught: unknown): boolean {
  if (!(caught instanceof ApiError)) return false;
  const here = location.pathname + location.search;
  const pending =
    caught.code === 'second_factor_required'
      ? 'second_factor'
      : caught.code === 'enrollment_required'
        ? 'enrollment'
        : null;
  if (pending) {
    location.assign(pagePending(pending, here));
    return true;
  }
  if (caught.status !== 401) return false;
  location.assign(`/signin?return_to=${encodeURIComponent(here)}`);
  return true;
}

/** What went wrong, as the envelope a page shows: anything but an API answer (a network failure) included. */
export const asApiError = (caught: unknown): ApiError =>
  caught instanceof ApiError
    ? caught
    : new ApiError(0, { error: 'client_error', error_description: String(caught), request_id: '' }, null);

/** GETs `path` on mount and on reload(); a 401 sends the browser to sign-in and back here. */
export function useApi<T>(path: string): Loaded<T> {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [loading, setLoading] = useState(true);
  const [generation, setGeneration] = useState(0);

  useEffect(() => {
    let live = true;
    setLoading(true);
    api<T>('GET', path)
      .then((value) => {
        if (!live) return;
        setData(value);
        setError(null);
      })
      .catch((caught: unknown) => {
        if (!live || sentToSignIn(caught)) return;
        setError(caught instanceof ApiError ? caught : null);
      })
      .finally(() => live && setLoading(false));
    return () => {
      live = false;
    };
  }, [path, generation]);

  return { data, error, loading, reload: useCallback(() => setGeneration((g) => g + 1), []) };
}

/** Runs a mutation, tracking busy state and the last error; resolves to the result or null on failure. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const run = useCallback(async <T>(work: () => Promise<T>): Promise<T | null> => {
    setBusy(true);
    setError(null);
    try {
      return await work();
    } catch (caught) {
      setError(asApiError(caught));
      return null;
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, run, clearError: () => setError(null) };
}
