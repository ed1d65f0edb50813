import { useState } from 'preact/hooks';
import { LOCALE_NAMES, LOCALES, type Locale } from '../../../../src/i18n/locales.ts';
import { api } from '../../api.ts';
import { ErrorNotice } from '../../components/ErrorNotice.tsx';
import { useAction } from '../../hooks/use-api.ts';
import { t } from '../../i18n/i18n.ts';
import type { Profile } from './types.ts';

/**
 * The language the person reads these pages and our messages in; "same as my browser" (null) follows Accept-Language.
 * Saved on the account, so it follows the person to any browser; the page reloads in the new language, since the
 * server picks the language before the page is drawn.
 */
export function LanguageSection({ profile }: { profile: Profile }) {
  const action = useAction();
  const [choice, setChoice] = useState<Locale | ''>(profile.locale ?? '');
  const save = async (event: Event) => {
    event.preventDefault();
    const locale = choice === '' ? null : choice;
    if (await action.run(() => api('PATCH', '/account/profile', { locale }))) location.reload();
  };
  return (
    <section aria-labelledby="language-heading">
      <h2 id="language-heading">{t('language.heading')}</h2>
      <ErrorNotice error={action.error} />
      <form onSubmit={save}>
        <div class="field">
          <label for="language">{t('language.label')}</label>
          <select
            id="language"
            name="language"
            value={choice}
            onChange={(event) => setChoice(event.currentTarget.value as Locale | '')}
            aria-describedby="language-hint"
          >
            <option value="">{t('language.browser')}</option>
            {LOCALES.map((locale) => (
              // Each language in its own name and marked as such, so a screen reader pronounces it right.
              <option key={locale} value={locale} lang={locale}>
                {LOCALE_NAMES[locale]}
              </option>
            ))}
          </select>
          <p class="hint" id="language-hint">
            {t('language.hint')}
          </p>
        </div>
        <button type="submit" disabled={action.busy}>
          {t('language.save')}
        </button>
      </form>
    </section>
  );
}
