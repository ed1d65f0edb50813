import { HowToTurnOnSelfService } from '../../components/SelfServiceOff.tsx';
import { t } from '../../i18n/i18n.ts';

/**
 * The account page while self-service is off: the account routes all refuse (403 self_service_disabled), so instead
 * of sections that can only fail, what an administrator can do for the person and how self-service is turned on.
 */
export function AdministeredAccount() {
  return (
    <section aria-labelledby="administered-heading">
      <h2 id="administered-heading">{t('administered.heading')}</h2>
      <p>{t('administered.explain')}</p>
      <ul>
        <li>{t('administered.newLink')}</li>
        <li>{t('administered.signOut')}</li>
        <li>{t('administered.roles')}</li>
        <li>{t('administered.suspend')}</li>
      </ul>
      <HowToTurnOnSelfService />
    </section>
  );
}
