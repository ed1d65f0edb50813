import type { ApiError } from '../api.ts';

const formatWait = (seconds: number) => (seconds < 90 ? `${seconds} seconds` : `${Math.ceil(seconds / 60)} minutes`);

/**
 * Shows an error's message and request id; role=alert so screen readers announce it when it appears. Focusable
 * (not tabbable) and marked as an outcome, so a form can move focus here when a change fails (use-outcome-focus.ts).
 */
export function ErrorNotice({ error }: { error: ApiError | null }) {
  if (!error) return null;
  return (
    <div class="notice notice-error" role="alert" tabIndex={-1} data-outcome>
      <p>{error.message}</p>
      {error.retryAfter !== null && <p>Try again in about {formatWait(error.retryAfter)}.</p>}
      {error.requestId && (
        <p class="request-id">
          Request ID: <code>{error.requestId}</code>
        </p>
      )}
    </div>
  );
}
