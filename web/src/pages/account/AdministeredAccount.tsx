import { HowToTurnOnSelfService } from '../../components/SelfServiceOff.tsx';

/**
 * The account page while self-service is off: the account routes all refuse (403 self_service_disabled), so instead
 * of sections that can only fail, what an administrator can do for the person and how self-service is turned on.
 */
export function AdministeredAccount() {
  return (
    <section aria-labelledby="administered-heading">
      <h2 id="administered-heading">Managed by an administrator</h2>
      <p>
        Account self-service is off here, so your password, email address and two-factor sign-in cannot be changed on
        this page. An administrator of this organization can, from the console:
      </p>
      <ul>
        <li>
          send you a new enrollment link, to set a new password and two-factor sign-in (a forgotten password or a lost
          authenticator);
        </li>
        <li>sign you out everywhere, for example after losing a device;</li>
        <li>change your roles in the organization;</li>
        <li>suspend or reactivate your account.</li>
      </ul>
      <HowToTurnOnSelfService />
    </section>
  );
}
