import type { ApiError } from '../../api.ts';
import { Field } from '../../components/Field.tsx';
import { t } from '../../i18n/i18n.ts';

/** Where "sign in again" goes: the sign-in page offers every method the service has, then comes back here. */
const SIGN_IN_AGAIN = `/signin?return_to=${encodeURIComponent('/settings')}`;

export const needsConfirmation = (error: ApiError | null) => error?.code === 'reauthentication_required';

/**
 * Shown when the server answers reauthentication_required: the person confirms it is them with what they have. A
 * password holder may type the current password and try again; anyone may sign in again with any of their methods
 * (passkey, linked provider, wallet, company sign-in), which the server accepts for ten minutes.
 */
export function ConfirmIdentity(props: {
  id: string;
  passwordSet: boolean;
  password: string;
  onPassword: (value: string) => void;
}) {
  return (
    <div class="confirm-identity">
      {props.passwordSet && (
        <Field
          id={props.id}
          label={t('common.currentPassword')}
          type="password"
          autoComplete="current-password"
          hint={t('confirmIdentity.hint')}
          value={props.password}
          onValue={props.onPassword}
        />
      )}
      <p>
        <a class="button secondary" href={SIGN_IN_AGAIN} target="_top">
          {props.passwordSet ? t('confirmIdentity.orSignInAgain') : t('confirmIdentity.signInAgain')}
        </a>{' '}
        <span class="hint">{t('confirmIdentity.within')}</span>
      </p>
    </div>
  );
}
