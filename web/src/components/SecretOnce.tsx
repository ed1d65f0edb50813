import { useState } from 'preact/hooks';

/**
 * A secret shown exactly once: copy it now; it is not stored in the page and will not be shown again. Focusable
 * and marked as the outcome, so focus lands here when it appears (use-outcome-focus.ts).
 */
export function SecretOnce({ label, secret, onDone }: { label: string; secret: string; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  return (
    <section class="notice notice-secret" aria-labelledby="secret-heading" tabIndex={-1} data-outcome>
      <h2 id="secret-heading">{label}</h2>
      <p>Copy it now. Gatehouse stores only a keyed hash of it and will never show it again.</p>
      <p>
        <code class="secret" data-testid="client-secret">
          {secret}
        </code>
      </p>
      <button
        type="button"
        onClick={() => {
          void navigator.clipboard?.writeText(secret).then(() => setCopied(true));
        }}
      >
        {copied ? 'Copied' : 'Copy secret'}
      </button>
      <button type="button" class="secondary" onClick={onDone}>
        I have stored it
      </button>
    </section>
  );
}
