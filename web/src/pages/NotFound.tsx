import { Page } from '../components/Page.tsx';
import { t } from '../i18n/i18n.ts';

export function NotFound() {
  return (
    <Page title={t('notFound.title')}>
      <p>{t('notFound.explain')}</p>
      <p>
        <a href="/signin">{t('notFound.signIn')}</a>
      </p>
    </Page>
  );
}
