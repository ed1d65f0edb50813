import type { ApiError } from '../api.ts';
import { ErrorNotice } from './ErrorNotice.tsx';

/** Loading and error states for a list: announced politely, never a blank page. */
export function LoadState({ loading, error }: { loading: boolean; error: ApiError | null }) {
  if (error) return <ErrorNotice error={error} />;
  if (loading)
    return (
      <p class="loading" role="status">
        Loading…
      </p>
    );
  return null;
}
