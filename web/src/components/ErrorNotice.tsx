import type { ApiError } from '../api.ts';

const formatWait = (seconds: number) => (seconds < 90 ? `${seconds} seconds` : `${Math.ceil(seconds / 60)} minutes`);

/** True when the problem's path is `body.<field>` or an entry of it (`body.<field>.2`). */
const under = (path: string, field: string) => path === `body.${field}` || path.startsWith(`body.${field}.`);

/**
 * The message, or, when the form shows every field problem beside its input (`shownFields`), a pointer to them:
 * each problem is then said once, where the person will fix it.
 */
function summary(error: ApiError, shownFields: string[]): string {
  const { fields } = error;
  if (fields.length === 0 || !fields.every((f) => shownFields.some((name) => under(f.path, name))))
    return error.message;
  return fields.length === 1 ? 'Check the field marked below.' : `Check the ${fields.length} fields marked below.`;
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
      {error.retryAfter !== null && <p>Try again in about {formatWait(error.retryAfter)}.</p>}
      {error.requestId && (
        <p class="request-id">
          Request ID: <code>{error.requestId}</code>
        </p>
      )}
    </div>
  );
}
