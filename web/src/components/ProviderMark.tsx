/**
 * A provider's mark: its initial in a badge. Brand logos are not bundled (their use terms differ by provider and the
 * page loads nothing from elsewhere), so the name beside it is what identifies the provider.
 */
export function ProviderMark({ name }: { name: string }) {
  return (
    <span class="provider-mark" aria-hidden="true">
      {name.trim().charAt(0).toUpperCase()}
    </span>
  );
}
