import type { ApiError } from '../api.ts';
import { t } from '../i18n/i18n.ts';
import { ErrorNotice } from './ErrorNotice.tsx';

/** Loading and error states for a list: announced politely, never a blank page. */
export function LoadState({ loading, error }: { loading: boolean; error: ApiError | null }) {
  if (error) return <ErrorNotice error={error} />;
  if (loading)
    return (
      <p class="loading" role="status">
        {t('common.loading')}
      </p>
    );
  return null;
}
