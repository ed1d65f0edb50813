import { useMemo, useState } from 'preact/hooks';
import { brand } from '../brand.ts';
import { t } from '../i18n/i18n.ts';

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
  const text = `${t('recovery.fileHeader', { org: brand.organization })}\n\n${codes.join('\n')}\n`;
  const download = useMemo(() => URL.createObjectURL(new Blob([text], { type: 'text/plain' })), [text]);
  return (
    <section aria-labelledby={titled ? undefined : 'recovery-heading'}>
      {!titled && <h2 id="recovery-heading">{t('recovery.title')}</h2>}
      <p>{t('recovery.explain')}</p>
      <ul class="codes" data-testid="recovery-codes">
        {codes.map((code) => (
          <li key={code}>
            <code>{code}</code>
          </li>
        ))}
      </ul>
      <button type="button" onClick={() => void navigator.clipboard?.writeText(text).then(() => setCopied(true))}>
        {copied ? t('common.copied') : t('recovery.copy')}
      </button>
      <a class="button secondary" href={download} download="gatehouse-recovery-codes.txt">
        {t('recovery.download')}
      </a>
      <button type="button" class="secondary" onClick={onDone}>
        {t('recovery.saved')}
      </button>
    </section>
  );
}
