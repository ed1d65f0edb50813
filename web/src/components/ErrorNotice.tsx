import type { ApiError } from '../api.ts';
import { errorMessage } from '../i18n/error-messages.ts';
import { t, tx } from '../i18n/i18n.ts';

const waitWords = (seconds: number) =>
  seconds < 90
    ? t('error.tryAgainIn', { unit: 'seconds', count: seconds })
    : t('error.tryAgainIn', { unit: 'minutes', count: Math.ceil(seconds / 60) });

/** True when the problem's path is `body.<field>` or an entry of it (`body.<field>.2`). */
const under = (path: string, field: string) => path === `body.${field}` || path.startsWith(`body.${field}.`);

/**
 * The message, or, when the form shows every field problem beside its input (`shownFields`), a pointer to them:
 * each problem is then said once, where the person will fix it.
 */
function summary(error: ApiError, shownFields: string[]): string {
  const { fields } = error;
  if (fields.length === 0 || !fields.every((f) => shownFields.some((name) => under(f.path, name))))
    return errorMessage(error);
  return t('error.checkFields', { count: fields.length });
}

/**
 * Shows an error's message and request id; role=alert so screen readers announce it when it appears. Focusable
 * (not tabbable) and marked as an outcome, so a form can move focus here when a change fails (use-outcome-focus.ts).
 */
export function ErrorNotice({ error, shownFields = [] }: { error: ApiError | null; shownFields?: string[] }) {
  if (!error) return null;
  return (
    <div class="notice notice-error" role="alert" tabIndex={-1} data-outcome>
      <p>{summary(error, shownFields)}</p>
      {error.retryAfter !== null && <p>{waitWords(error.retryAfter)}</p>}
      {error.requestId && <p class="request-id">{tx('error.requestId', { id: <code>{error.requestId}</code> })}</p>}
    </div>
  );
}
