import { useMemo, useState } from 'preact/hooks';

/**
 * Recovery codes, shown once: copy or download them before leaving the page. A page whose own title already says
 * "Save your recovery codes" (enrollment) passes `titled` so the page has one heading, not two.
 */
export function RecoveryCodes({
  codes,
  onDone,
  titled = false,
}: {
  codes: string[];
  onDone: () => void;
  titled?: boolean;
}) {
  const [copied, setCopied] = useState(false);
  const text = `Gatehouse recovery codes (each works once)\n\n${codes.join('\n')}\n`;
  const download = useMemo(() => URL.createObjectURL(new Blob([text], { type: 'text/plain' })), [text]);
  return (
    <section aria-labelledby={titled ? undefined : 'recovery-heading'}>
      {!titled && <h2 id="recovery-heading">Save your recovery codes</h2>}
      <p>
        If you lose your authenticator, each of these codes signs you in once, together with your password. They are
        shown only now.
      </p>
      <ul class="codes" data-testid="recovery-codes">
        {codes.map((code) => (
          <li key={code}>
            <code>{code}</code>
          </li>
        ))}
      </ul>
      <button type="button" onClick={() => void navigator.clipboard?.writeText(text).then(() => setCopied(true))}>
        {copied ? 'Copied' : 'Copy codes'}
      </button>
      <a class="button secondary" href={download} download="gatehouse-recovery-codes.txt">
        Download codes
      </a>
      <button type="button" class="secondary" onClick={onDone}>
        I have saved them
      </button>
    </section>
  );
}
