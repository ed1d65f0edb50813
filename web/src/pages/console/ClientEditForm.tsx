import { useState } from 'preact/hooks';
import { api } from '../../api.ts';
import { ErrorNotice } from '../../components/ErrorNotice.tsx';
import { Field } from '../../components/Field.tsx';
import { ListField } from '../../components/ListField.tsx';
import { useAction } from '../../hooks/use-api.ts';
import { useOutcomeFocus } from '../../hooks/use-outcome-focus.ts';
import {
  ClientKeysFields,
  DeviceGrantCheckbox,
  DpopCheckbox,
  type KeysDraft,
  keysBody,
  ParCheckbox,
} from './ClientKeysFields.tsx';
import { EditHeading } from './EditHeading.tsx';
import { problemFor } from './field-problems.ts';
import { FormButtons } from './RowActions.tsx';
import { TokenExchangeField } from './TokenExchangeField.tsx';
import { type Client, splitList } from './types.ts';

/**
 * Edits what PATCH /admin/clients/:id accepts for the client's kind (the kind and application are fixed). Every
 * problem the API names shows under its field, and focus moves to the first of them.
 */
export function ClientEditForm({
  client,
  onSaved,
  onCancel,
}: {
  client: Client;
  onSaved: (client: Client) => void;
  onCancel: () => void;
}) {
  const action = useAction();
  const outcome = useOutcomeFocus<HTMLFormElement>();
  const service = client.kind === 'service';
  const [name, setName] = useState(client.name);
  const [redirects, setRedirects] = useState(client.redirect_uris.join('\n'));
  const [logoutRedirects, setLogoutRedirects] = useState(client.post_logout_redirect_uris.join('\n'));
  const [scopes, setScopes] = useState(client.scopes.join(' '));
  const [audiences, setAudiences] = useState(client.audiences.join(' '));
  const [firstParty, setFirstParty] = useState(client.first_party);
  const [dpopBound, setDpopBound] = useState(client.dpop_bound_access_tokens);
  const [deviceGrant, setDeviceGrant] = useState(client.device_authorization_grant);
  const [requirePar, setRequirePar] = useState(client.require_pushed_authorization_requests);
  const [backchannel, setBackchannel] = useState(client.backchannel_logout_uri ?? '');
  const [exchangeAudiences, setExchangeAudiences] = useState(client.token_exchange_audiences.join(' '));
  const confidential = client.kind === 'web' || client.kind === 'service';
  const keyed = client.token_endpoint_auth_method === 'private_key_jwt';
  const [keys, setKeys] = useState<KeysDraft>({
    jwks: client.jwks ? JSON.stringify(client.jwks, null, 2) : '',
    jwksUri: client.jwks_uri ?? '',
  });
  const [keysError, setKeysError] = useState<string | undefined>(undefined);
  const sent = {
    redirect_uris: splitList(redirects),
    post_logout_redirect_uris: splitList(logoutRedirects),
    scopes: splitList(scopes),
    audiences: splitList(audiences),
    token_exchange_audiences: splitList(exchangeAudiences),
  };
  const problem = (field: keyof typeof sent | 'name') =>
    problemFor(action.error, field, field === 'name' ? [] : sent[field]);

  const submit = async (event: Event) => {
    event.preventDefault();
    const sentKeys = keyed ? keysBody(keys) : {};
    setKeysError(typeof sentKeys === 'string' ? sentKeys : undefined);
    if (typeof sentKeys === 'string') return;
    const common = {
      name,
      scopes: sent.scopes,
      audiences: sent.audiences,
      dpop_bound_access_tokens: dpopBound,
      ...(confidential ? { token_exchange_audiences: sent.token_exchange_audiences } : {}),
    };
    const body = service
      ? { ...common, ...sentKeys }
      : {
          ...common,
          ...sentKeys,
          redirect_uris: sent.redirect_uris,
          post_logout_redirect_uris: sent.post_logout_redirect_uris,
          first_party: firstParty,
          require_pushed_authorization_requests: requirePar,
          device_authorization_grant: deviceGrant,
          backchannel_logout_uri: backchannel.trim() === '' ? null : backchannel.trim(),
        };
    const saved = await action.run(() =>
      api<Client>('PATCH', `/admin/clients/${encodeURIComponent(client.client_id)}`, body),
    );
    if (saved) onSaved(saved);
    else outcome.settled();
  };

  return (
    <form onSubmit={submit} aria-labelledby="edit-client" ref={outcome.ref} noValidate>
      <EditHeading id="edit-client" text={`Edit client ${client.name}`} />
      <ErrorNotice
        error={action.error}
        shownFields={[
          'name',
          'redirect_uris',
          'post_logout_redirect_uris',
          'scopes',
          'audiences',
          'token_exchange_audiences',
        ]}
      />
      <Field id="edit-client-name" label="Name" required value={name} onValue={setName} error={problem('name')} />
      <Field
        id="edit-client-audiences"
        label="Allowed audiences"
        hint={
          service
            ? 'Registered resource audiences, separated by spaces.'
            : 'Optional: registered resource audiences the app may ask user tokens for (resource parameter), separated by spaces.'
        }
        value={audiences}
        onValue={setAudiences}
        error={problem('audiences')}
      />
      {service ? null : (
        <>
          <ListField
            id="edit-client-redirects"
            label="Redirect URIs"
            hint="One per line; exact absolute URIs (https, or loopback for native apps)."
            value={redirects}
            onValue={setRedirects}
            error={problem('redirect_uris')}
          />
          <ListField
            id="edit-client-logout-redirects"
            label="Post-logout redirect URIs"
            hint="Optional; one per line. Where the app may send people after they sign out."
            value={logoutRedirects}
            onValue={setLogoutRedirects}
            error={problem('post_logout_redirect_uris')}
          />
          <div class="field checkbox">
            <input
              id="edit-client-first-party"
              type="checkbox"
              checked={firstParty}
              onChange={(e) => setFirstParty(e.currentTarget.checked)}
            />
            <label for="edit-client-first-party">First-party (no consent screen)</label>
          </div>
        </>
      )}
      <Field
        id="edit-client-scopes"
        label="Scopes"
        hint={
          service
            ? 'Scopes of the allowed audiences, separated by spaces.'
            : 'Separated by spaces; offline_access allows refresh tokens; resource scopes need their audience above.'
        }
        value={scopes}
        onValue={setScopes}
        error={problem('scopes')}
      />
      {keyed && (
        <ClientKeysFields
          idPrefix="edit-client"
          draft={keys}
          onDraft={setKeys}
          error={action.error}
          localError={keysError}
        />
      )}
      {confidential && (
        <TokenExchangeField
          id="edit-client-exchange-audiences"
          value={exchangeAudiences}
          onValue={setExchangeAudiences}
          error={problem('token_exchange_audiences')}
        />
      )}
      <DpopCheckbox id="edit-client-dpop" checked={dpopBound} onChecked={setDpopBound} />
      {!service && <ParCheckbox id="edit-client-par" checked={requirePar} onChecked={setRequirePar} />}
      {!service && (
        <DeviceGrantCheckbox id="edit-client-device-grant" checked={deviceGrant} onChecked={setDeviceGrant} />
      )}
      {!service && (
        <Field
          id="edit-client-backchannel"
          label="Back-channel logout URL"
          hint="Optional: where the app receives a signed logout token when a person's session ends (https)."
          value={backchannel}
          onValue={setBackchannel}
          error={problemFor(action.error, 'backchannel_logout_uri')}
        />
      )}
      <FormButtons save="Save client" busy={action.busy} onCancel={onCancel} />
    </form>
  );
}
