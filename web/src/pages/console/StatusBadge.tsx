import { type CheckStatus, STATUS_WORDS } from './status-types.ts';

/** A status in words (OK, Note, Warning, Error), coloured as a second cue only. */
export function StatusBadge({ status, label }: { status: CheckStatus; label?: string }) {
  return <span class={`badge badge-${status}`}>{label ?? STATUS_WORDS[status]}</span>;
}
