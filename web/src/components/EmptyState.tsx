import type { ComponentChildren } from 'preact';

/** What an empty list means and the action that fills it, instead of an empty table. */
export function EmptyState({ children }: { children: ComponentChildren }) {
  return (
    <p class="empty" data-testid="empty-state">
      {children}
    </p>
  );
}
