import type { ApiError } from '../../api.ts';
import { Field } from '../../components/Field.tsx';
import { ListField } from '../../components/ListField.tsx';
import { problemFor } from './field-problems.ts';

/** The keys of a private_key_jwt client: a JWKS typed as JSON, or the URL the client publishes it at. */
export interface KeysDraft {
  jwks: string;
  jwksUri: string;
}

/** What the draft sends (RFC 7591 §2 `jwks` or `jwks_uri`); a string when the JWKS is not JSON, to show locally. */
export function keysBody(draft: KeysDraft): { jwks?: unknown; jwks_uri?: string } | string {
  const uri = draft.jwksUri.trim();
  if (draft.jwks.trim() === '') return uri === '' ? {} : { jwks_uri: uri };
  try {
    return { jwks: JSON.parse(draft.jwks) as unknown };
  } catch {
    return 'The public keys must be a JSON Web Key Set, such as {"keys": [...]}';
  }
}

export function ClientKeysFields({
  idPrefix,
  draft,
  onDraft,
  error,
  localError,
}: {
  idPrefix: string;
  draft: KeysDraft;
  onDraft: (draft: KeysDraft) => void;
  error: ApiError | null;
  localError: string | undefined;
}) {
  return (
    <>
      <ListField
        id={`${idPrefix}-jwks`}
        label="Public keys (JWKS)"
        hint='The JSON Web Key Set the client signs its assertions with, e.g. {"keys": [...]}; public keys only. Leave empty to give a URL instead.'
        value={draft.jwks}
        onValue={(jwks) => onDraft({ ...draft, jwks })}
        error={localError ?? problemFor(error, 'jwks')}
      />
      <Field
        id={`${idPrefix}-jwks-uri`}
        label="JWKS URL"
        hint="Or where the client publishes its keys (https; fetched and cached by the server)."
        value={draft.jwksUri}
        onValue={(jwksUri) => onDraft({ ...draft, jwksUri })}
        error={problemFor(error, 'jwks_uri')}
      />
    </>
  );
}

interface FlagProps {
  id: string;
  checked: boolean;
  onChecked: (v: boolean) => void;
}

/** One client flag as a labelled checkbox; the exports below name each flag and say what it means. */
function FlagCheckbox({ id, checked, onChecked, label }: FlagProps & { label: string }) {
  return (
    <div class="field checkbox">
      <input id={id} type="checkbox" checked={checked} onChange={(e) => onChecked(e.currentTarget.checked)} />
      <label for={id}>{label}</label>
    </div>
  );
}

/** RFC 9126 §6 require_pushed_authorization_requests as a checkbox. */
export const ParCheckbox = (props: FlagProps) => (
  <FlagCheckbox {...props} label="Require pushed authorization requests (PAR)" />
);

/** RFC 9449 §5.2 dpop_bound_access_tokens as a checkbox. */
export const DpopCheckbox = (props: FlagProps) => (
  <FlagCheckbox {...props} label="Require DPoP-bound tokens (every token request must carry a DPoP proof)" />
);

/** RFC 8628: whether the client may use the device authorization grant (docs/oauth.md); never a service client. */
export const DeviceGrantCheckbox = (props: FlagProps) => (
  <FlagCheckbox
    {...props}
    label="Allow the device authorization grant (sign-in on a TV or command line, approved on /device)"
  />
);
