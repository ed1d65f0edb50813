import { useState } from 'preact/hooks';
import { api } from '../../api.ts';
import { ErrorNotice } from '../../components/ErrorNotice.tsx';
import { Field, FieldError } from '../../components/Field.tsx';
import { useAction } from '../../hooks/use-api.ts';
import { useOutcomeFocus } from '../../hooks/use-outcome-focus.ts';
import { problemFor } from './field-problems.ts';

const splitDomains = (text: string) => text.split(/[\s,]+/).filter(Boolean);

/**
 * Add a SAML connection (POST /admin/saml-connections) from the identity provider's metadata document, the one thing
 * its administrator hands over. Gatehouse makes the service provider key pair; the new connection's panel then shows
 * what goes back to the identity provider (metadata URL, entity id, ACS).
 */
export function AddSamlConnection({ onAdded }: { onAdded: (name: string) => void }) {
  const action = useAction();
  const form = useOutcomeFocus<HTMLElement>();
  const [id, setId] = useState('');
  const [name, setName] = useState('');
  const [domains, setDomains] = useState('');
  const [metadata, setMetadata] = useState('');
  const [metadataUrl, setMetadataUrl] = useState('');
  const [emailAttribute, setEmailAttribute] = useState('email');
  const [nameAttribute, setNameAttribute] = useState('displayName');
  const [signUp, setSignUp] = useState(true);

  const add = async (event: Event) => {
    event.preventDefault();
    // The URL when given (fetched now and again on a key rollover), else the pasted document.
    const idp = metadataUrl.trim() ? { idp_metadata_url: metadataUrl.trim() } : { idp_metadata_xml: metadata };
    const body = {
      id,
      name,
      email_domains: splitDomains(domains),
      ...idp,
      email_attribute: emailAttribute,
      display_name_attribute: nameAttribute,
      sign_up: signUp,
    };
    const done = await action.run(() => api<{ id: string; name: string }>('POST', '/admin/saml-connections', body));
    if (done) {
      setId('');
      setName('');
      setDomains('');
      setMetadata('');
      setMetadataUrl('');
      onAdded(done.name);
    }
    form.settled();
  };

  const metadataError = problemFor(action.error, 'idp_metadata_xml');
  return (
    <section ref={form.ref} class="panel" aria-labelledby="add-saml-heading">
      <h2 id="add-saml-heading">Add a connection</h2>
      <ErrorNotice
        error={action.error}
        shownFields={[
          'id',
          'name',
          'email_domains',
          'idp_metadata_url',
          'idp_metadata_xml',
          'email_attribute',
          'display_name_attribute',
        ]}
      />
      <form onSubmit={add} aria-busy={action.busy}>
        <Field
          id="saml-id"
          label="Connection id"
          hint="Lowercase letters, digits and hyphens; part of the URLs the identity provider is given, so it cannot change."
          required
          pattern="[a-z][a-z0-9\-]{0,31}"
          value={id}
          onValue={setId}
          error={problemFor(action.error, 'id')}
        />
        <Field
          id="saml-name"
          label="Name shown to people"
          required
          maxLength={200}
          value={name}
          onValue={setName}
          error={problemFor(action.error, 'name')}
        />
        <Field
          id="saml-domains"
          label="Email domains"
          hint="Sign-ins with these addresses go to this identity provider; separate several with spaces."
          required
          value={domains}
          onValue={setDomains}
          error={problemFor(action.error, 'email_domains', splitDomains(domains))}
        />
        <Field
          id="saml-metadata-url"
          label="Identity provider metadata URL"
          hint="Fetched now, and again when the identity provider rolls its signing key over. Or paste the document below."
          value={metadataUrl}
          onValue={setMetadataUrl}
          error={problemFor(action.error, 'idp_metadata_url')}
        />
        <div class="field">
          <label for="saml-metadata">Identity provider metadata (XML)</label>
          <textarea
            id="saml-metadata"
            name="saml-metadata"
            required={metadataUrl.trim() === ''}
            rows={6}
            value={metadata}
            onInput={(event) => setMetadata(event.currentTarget.value)}
            aria-describedby={metadataError ? 'saml-metadata-error' : undefined}
            aria-invalid={metadataError ? true : undefined}
          />
          <FieldError id="saml-metadata" error={metadataError} />
        </div>
        <Field
          id="saml-email-attribute"
          label="Email attribute"
          hint="The default, email, also reads mail and its OID (urn:oid:0.9.2342.19200300.100.1.3)."
          required
          value={emailAttribute}
          onValue={setEmailAttribute}
          error={problemFor(action.error, 'email_attribute')}
        />
        <Field
          id="saml-name-attribute"
          label="Display name attribute"
          hint="The default, displayName, also reads its OID, cn, and givenName with sn."
          required
          value={nameAttribute}
          onValue={setNameAttribute}
          error={problemFor(action.error, 'display_name_attribute')}
        />
        <div class="field">
          <label>
            <input type="checkbox" checked={signUp} onChange={(event) => setSignUp(event.currentTarget.checked)} /> New
            people get an account at their first sign-in
          </label>
        </div>
        <button type="submit" disabled={action.busy}>
          Add connection
        </button>
      </form>
    </section>
  );
}
