import { t } from '../i18n/i18n.ts';
import { Field } from './Field.tsx';

type TotpFieldProps = Pick<
  Parameters<typeof Field>[0],
  'id' | 'label' | 'hint' | 'value' | 'onValue' | 'required' | 'autoFocus'
>;

/** A 6-digit code from an authenticator app (RFC 6238), with the keyboard and autofill hints such codes get. */
export function TotpField(props: TotpFieldProps) {
  return <Field inputMode="numeric" pattern="[0-9]{6}" autoComplete="one-time-code" {...props} />;
}

/**
 * The second factor as sign-in asks for it: an authentication code, or a recovery code in its place. Distinct keys:
 * reusing one <input> would carry the TOTP field's pattern over and block a recovery code.
 */
export function SecondFactorField(props: {
  recovery: boolean;
  value: string;
  onValue: (value: string) => void;
  totpHint: string;
  totpRequired: boolean;
  autoFocus?: boolean;
}) {
  const { recovery, value, onValue, autoFocus } = props;
  return recovery ? (
    <Field
      key="recovery-code"
      id="recovery-code"
      label={t('code.recoveryLabel')}
      autoComplete="off"
      required
      value={value}
      onValue={onValue}
      hint={t('code.recoveryHint')}
      autoFocus={autoFocus}
    />
  ) : (
    <TotpField
      key="totp"
      id="totp"
      label={t('code.totpLabel')}
      required={props.totpRequired}
      value={value}
      onValue={onValue}
      hint={props.totpHint}
      autoFocus={autoFocus}
    />
  );
}
