import type { ApiError } from '../../api.ts';
import { Field } from '../../components/Field.tsx';

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
          label="Current password"
          type="password"
          autoComplete="current-password"
          hint="Type it, then try again."
          value={props.password}
          onValue={props.onPassword}
        />
      )}
      <p>
        <a class="button secondary" href={SIGN_IN_AGAIN} target="_top">
          {props.passwordSet ? 'Or sign in again' : 'Sign in again to confirm it is you'}
        </a>{' '}
        <span class="hint">with any of your ways to sign in, then make the change within ten minutes.</span>
      </p>
    </div>
  );
}
