/** A success message: role=status so it is announced, focusable (not tabbable) so focus can be moved to it. */
export function StatusNotice({ message }: { message: string }) {
  if (!message) return null;
  return (
    <p class="notice notice-done" role="status" tabIndex={-1} data-outcome>
      {message}
    </p>
  );
}
