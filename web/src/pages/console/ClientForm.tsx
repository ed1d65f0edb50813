import { useEffect, useState } from 'preact/hooks';
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
import { problemFor } from './field-problems.ts';
import { TokenExchangeField } from './TokenExchangeField.tsx';
import { type Application, type Client, type ClientKind, splitList } from './types.ts';

// Short option labels, so a closed select shows the whole choice on a phone; the chosen kind's meaning is its hint.
const KINDS: [ClientKind, string, string][] = [
  ['web', 'web: server-side app', 'Runs on your server and gets a secret to prove it is the app.'],
  ['browser', 'browser: single-page app', 'Runs in the browser: no secret, the code is public.'],
  ['native', 'native: mobile or desktop', 'Installed on a device: no secret; may redirect to a loopback address.'],
  ['service', 'service: machine to machine', 'Calls APIs as itself, with no person signed in; gets a secret.'],
];

/**
 * Registers a client; hands the created record (with its one-time secret, if any) to `onCreated`. The page gives each
 * new form a new key, so after "Create client" every field starts over. `initialApplication` is chosen when given.
 */
export function ClientForm({
  applications,
  initialApplication = null,
  onCreated,
}: {
  applications: Application[];
  initialApplication?: string | null;
  onCreated: (client: Client) => void;
}) {
  const action = useAction();
  const outcome = useOutcomeFocus<HTMLFormElement>();
  const [applicationId, setApplicationId] = useState(initialApplication ?? '');
  const [name, setName] = useState('');
  const [kind, setKind] = useState<ClientKind>('web');
  const [redirectUris, setRedirectUris] = useState('');
  const [scopes, setScopes] = useState('openid profile email');
  const [audiences, setAudiences] = useState('');
  const [firstParty, setFirstParty] = useState(true);
  const [keyed, setKeyed] = useState(false);
  const [keys, setKeys] = useState<KeysDraft>({ jwks: '', jwksUri: '' });
  const [keysError, setKeysError] = useState<string | undefined>(undefined);
  const [dpopBound, setDpopBound] = useState(false);
  const [requirePar, setRequirePar] = useState(false);
  const [deviceGrant, setDeviceGrant] = useState(false);
  const [backchannel, setBackchannel] = useState('');
  const [exchangeAudiences, setExchangeAudiences] = useState('');
  const confidential = kind === 'web' || kind === 'service';
  // The select must hold a real application id; an empty value would match no option and block the form.
  useEffect(() => {
    if (!applications.some((a) => a.id === applicationId)) setApplicationId(applications[0]?.id ?? '');
  }, [applications]);
  // Arriving from "Add a client" for a new application: the form is what the person came for.
  useEffect(() => {
    if (initialApplication) document.getElementById('client-name')?.focus();
  }, []);

  const lists = {
    redirect_uris: splitList(redirectUris),
    scopes: splitList(scopes),
    audiences: splitList(audiences),
    token_exchange_audiences: splitList(exchangeAudiences),
  };
  const problem = (field: keyof typeof lists | 'name') =>
    problemFor(action.error, field, field in lists ? lists[field as keyof typeof lists] : []);

  const submit = async (event: Event) => {
    event.preventDefault();
    const sentKeys = confidential && keyed ? keysBody(keys) : {};
    setKeysError(typeof sentKeys === 'string' ? sentKeys : undefined);
    if (typeof sentKeys === 'string') return;
    const body = {
      application_id: applicationId,
      name,
      kind,
      scopes: lists.scopes,
      audiences: lists.audiences,
      dpop_bound_access_tokens: dpopBound,
      ...(confidential && keyed ? { token_endpoint_auth_method: 'private_key_jwt', ...sentKeys } : {}),
      ...(confidential ? { token_exchange_audiences: lists.token_exchange_audiences } : {}),
      ...(kind === 'service'
        ? {}
        : {
            redirect_uris: lists.redirect_uris,
            first_party: firstParty,
            require_pushed_authorization_requests: requirePar,
            device_authorization_grant: deviceGrant,
            ...(backchannel.trim() === '' ? {} : { backchannel_logout_uri: backchannel.trim() }),
          }),
    };
    const created = await action.run(() => api<Client>('POST', '/admin/clients', body));
    if (created) onCreated(created);
    else outcome.settled();
  };

  return (
    <form onSubmit={submit} aria-labelledby="new-client" ref={outcome.ref}>
      <h2 id="new-client">New client</h2>
      <ErrorNotice
        error={action.error}
        shownFields={['name', 'redirect_uris', 'scopes', 'audiences', 'token_exchange_audiences']}
      />
      <div class="field">
        <label for="client-application">Application</label>
        <select
          id="client-application"
          value={applicationId}
          onChange={(e) => setApplicationId(e.currentTarget.value)}
          required
        >
          {applications.map((a) => (
            <option key={a.id} value={a.id}>
              {a.name} ({a.identifier})
            </option>
          ))}
        </select>
      </div>
      <Field id="client-name" label="Name" required value={name} onValue={setName} error={problem('name')} />
      <div class="field">
        <label for="client-kind">Kind</label>
        <select
          id="client-kind"
          value={kind}
          onChange={(e) => setKind(e.currentTarget.value as ClientKind)}
          aria-describedby="client-kind-hint"
        >
          {KINDS.map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
        <p class="hint" id="client-kind-hint">
          {KINDS.find(([value]) => value === kind)?.[2]}
        </p>
      </div>
      <Field
        id="client-audiences"
        label="Allowed audiences"
        hint={
          kind === 'service'
            ? 'Registered resource audiences, separated by spaces.'
            : 'Optional: registered resource audiences the app may ask user tokens for (resource parameter), separated by spaces.'
        }
        required={kind === 'service'}
        value={audiences}
        onValue={setAudiences}
        error={problem('audiences')}
      />
      {kind === 'service' ? null : (
        <>
          <ListField
            id="client-redirects"
            label="Redirect URIs"
            hint="One per line; exact absolute URIs (https, or loopback for native apps). None needed for a client that signs in only with the device grant."
            required={!deviceGrant}
            value={redirectUris}
            onValue={setRedirectUris}
            error={problem('redirect_uris')}
          />
          <div class="field checkbox">
            <input
              id="client-first-party"
              type="checkbox"
              checked={firstParty}
              onChange={(e) => setFirstParty(e.currentTarget.checked)}
            />
            <label for="client-first-party">First-party (no consent screen)</label>
          </div>
        </>
      )}
      <Field
        id="client-scopes"
        label="Scopes"
        hint="Separated by spaces; add offline_access to allow refresh tokens."
        required
        value={scopes}
        onValue={setScopes}
        error={problem('scopes')}
      />
      {confidential && (
        <div class="field">
          <label for="client-auth-method">Client authentication</label>
          <select
            id="client-auth-method"
            value={keyed ? 'private_key_jwt' : 'client_secret_post'}
            onChange={(e) => setKeyed(e.currentTarget.value === 'private_key_jwt')}
            aria-describedby="client-auth-method-hint"
          >
            <option value="client_secret_post">A client secret</option>
            <option value="private_key_jwt">Signed assertions (keys)</option>
          </select>
          <p class="hint" id="client-auth-method-hint">
            {keyed
              ? 'private_key_jwt: the app signs an assertion with a private key; you register its public keys below.'
              : 'client_secret_post: a secret, shown once after you create the client.'}
          </p>
        </div>
      )}
      {confidential && keyed && (
        <ClientKeysFields
          idPrefix="client"
          draft={keys}
          onDraft={setKeys}
          error={action.error}
          localError={keysError}
        />
      )}
      {confidential && (
        <TokenExchangeField
          id="client-exchange-audiences"
          value={exchangeAudiences}
          onValue={setExchangeAudiences}
          error={problem('token_exchange_audiences')}
        />
      )}
      <DpopCheckbox id="client-dpop" checked={dpopBound} onChecked={setDpopBound} />
      {kind !== 'service' && <ParCheckbox id="client-par" checked={requirePar} onChecked={setRequirePar} />}
      {kind !== 'service' && (
        <DeviceGrantCheckbox id="client-device-grant" checked={deviceGrant} onChecked={setDeviceGrant} />
      )}
      {kind !== 'service' && (
        <Field
          id="client-backchannel"
          label="Back-channel logout URL"
          hint="Optional: where the app receives a signed logout token when a person's session ends (https)."
          value={backchannel}
          onValue={setBackchannel}
          error={problemFor(action.error, 'backchannel_logout_uri')}
        />
      )}
      <button type="submit" disabled={action.busy || applications.length === 0}>
        Create client
      </button>
      {applications.length === 0 && <p class="hint">Create an application first.</p>}
    </form>
  );
}
