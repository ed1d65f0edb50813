import { Field } from '../../components/Field.tsx';

/**
 * RFC 8693 token exchange (docs/oauth.md "Token exchange"): the registered audiences a confidential client may exchange
 * a person's access token for. Empty, the default, allows none.
 */
export function TokenExchangeField({
  id,
  value,
  onValue,
  error,
}: {
  id: string;
  value: string;
  onValue: (value: string) => void;
  error: string | undefined;
}) {
  return (
    <Field
      id={id}
      label="Token exchange audiences"
      hint="Optional: registered resource audiences this client may exchange a person's access token for (RFC 8693), separated by spaces. Empty: no exchange."
      value={value}
      onValue={onValue}
      error={error}
    />
  );
}
