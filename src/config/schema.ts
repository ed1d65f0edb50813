// The whole configuration, once. Each option carries its default and a description that says what it does,
// why the default, and its security impact; docs/configuration.md is generated from these descriptions
// (`npm run docs`) and src/http/error-catalogue.test.ts fails when the file is stale.

import type { Static } from 'typebox';
import { DEFAULT_LOCALE, LOCALES } from '../i18n/locales.ts';
import { Type } from '../schema/type.ts';

const text = (description: string, defaultValue = '') => Type.String({ default: defaultValue, description });
const flag = (description: string, defaultValue = false) => Type.Boolean({ default: defaultValue, description });
const seconds = (description: string, defaultValue: number, minimum = 1) =>
  Type.Integer({ default: defaultValue, minimum, maximum: 31_536_000, description });
const section = <T extends Type.TProperties>(description: string, properties: T) =>
  Type.Object(properties, { additionalProperties: false, default: {}, description });

export const HTTP_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/** The nine sign-in provider selections SPEC.md names; two of them are web3. */
export const REDIRECT_PROVIDERS = ['google', 'github', 'gitlab', 'microsoft', 'apple', 'discord', 'slack'] as const;
export const WEB3_PROVIDERS = ['ethereum', 'farcaster'] as const;

const trustUpstreamMfa = flag(
  "Trust the provider's own amr/acr: a sign-in it reports as multi-factor (amr mfa, or an acr naming MFA) counts as aal2 here. Off by default: upstream MFA is outside this service's control, so a federated sign-in is aal1 and an account that needs aal2 must still add its own second factor.",
);

/**
 * One redirect provider. `issuer` is where discovery starts (OpenID Connect kinds) or the base URL of its endpoints
 * (OAuth 2 kinds); the default is the public service, a different value serves a self-hosted instance or a tenant.
 * The client secret is never here: it is the file `provider-<id>.secret` in `secrets.dir` (mode 0600).
 */
const redirectFields = (issuer: string) => ({
  enabled: flag(
    'Offer this provider on the sign-in page. Needs a real client_id and the secret file provider-<id>.secret in secrets.dir.',
  ),
  client_id: text('OAuth client id registered at the provider. A placeholder value defers the provider.'),
  issuer: text(
    'Issuer (OpenID Connect discovery starts at {issuer}/.well-known/openid-configuration) or API base URL for the OAuth 2 kinds. Change it for a self-hosted instance or a single tenant; https only (http only for loopback).',
    issuer,
  ),
  trust_upstream_mfa: trustUpstreamMfa,
});
const redirectProvider = (name: string, issuer: string) =>
  section(`Redirect sign-in provider ${name}.`, redirectFields(issuer));

const oidcProvider = Type.Object(
  {
    id: Type.String({
      pattern: '^[a-z][a-z0-9-]{0,31}$',
      description:
        'Stable identifier, used in URLs and in the stored link (provider, external subject): renaming it orphans existing links. Must not be one of the nine named selections.',
    }),
    name: text('Name shown on the sign-in button.'),
    enabled: flag('Offer this provider on the sign-in page.', true),
    issuer: text(
      "The provider's issuer URL exactly as its discovery document states it; https only (http only for loopback).",
    ),
    client_id: text('OAuth client id registered at the provider. A placeholder value defers the provider.'),
    scopes: Type.Array(Type.String({ minLength: 1, pattern: '^[\\x21\\x23-\\x5b\\x5d-\\x7e]+$' }), {
      default: ['openid', 'email', 'profile'],
      description: 'Scopes requested; openid is always sent.',
    }),
    trust_upstream_mfa: trustUpstreamMfa,
  },
  { additionalProperties: false },
);

/**
 * One LDAP directory users sign in against (`[ldap.<id>]`). The service account's password is never here: it is the
 * file `ldap-<id>.secret` in `secrets.dir` (mode 0600).
 */
export const LdapDirectorySchema = Type.Object(
  {
    name: text(
      'Name of the directory shown to people in their list of ways to sign in (e.g. "Example Corp directory"). Empty: "Directory (LDAP)" and the id.',
    ),
    url: Type.String({
      pattern: '^ldaps?://',
      description:
        'ldaps://host:636 (TLS from the first byte) or ldap://host:389 with start_tls = true. Plain LDAP sends every password in the clear, so it is refused unless allow_plain_loopback is set and the host is loopback.',
    }),
    start_tls: flag('Upgrade an ldap:// connection with StartTLS (RFC 4513 §3) before anything is sent.'),
    allow_plain_loopback: flag(
      'Accept ldap:// without StartTLS when the host is 127.0.0.1, ::1 or localhost (a directory on this machine). Passwords cross the loopback interface in the clear.',
    ),
    ca_file: text(
      "PEM bundle of the CAs that may sign the directory's certificate; relative paths resolve against the config file. Empty: the system CAs. The certificate must name the host in url.",
    ),
    bind_dn: Type.String({
      minLength: 1,
      description:
        'DN of the service account that searches for users (its password: the file ldap-<id>.secret in secrets.dir). It needs read access to the user and group entries, nothing more.',
    }),
    email_domains: Type.Array(Type.String({ pattern: '^[a-z0-9.-]+\\.[a-z]{2,}$' }), {
      minItems: 1,
      description:
        'Sign-in subjects (email addresses) in these domains are checked against this directory instead of local passwords. A domain belongs to one directory.',
    }),
    user_search_base: Type.String({ minLength: 1, description: 'Base DN of the user search (subtree).' }),
    user_filter: Type.String({
      pattern: '\\{subject\\}',
      default: '(&(objectClass=inetOrgPerson)(mail={subject}))',
      description:
        'Filter finding the one entry for a sign-in subject; {subject} is replaced by the subject as typed, escaped per RFC 4515 §3. No entry or more than one: the sign-in fails like a wrong password.',
    }),
    id_attribute: text(
      'Attribute holding the stable id the Gatehouse identity is linked to (never the email, never the DN, which change). entryUUID (RFC 4530) by default; objectGUID for Active Directory.',
      'entryUUID',
    ),
    display_name_attribute: text('Attribute used as the display name of a new identity.', 'cn'),
    email_attribute: text(
      'Attribute used as the (unverified) email address of a new identity; never used to find or link an identity.',
      'mail',
    ),
    sign_up: flag(
      'A directory user without a Gatehouse identity gets one at first sign-in. Off: only identities that already have this directory as a sign-in method sign in.',
      true,
    ),
    group_search_base: text('Base DN of the group search; empty: no group lookup and no role mapping.'),
    group_filter: Type.String({
      pattern: '\\{dn\\}',
      default: '(&(objectClass=groupOfNames)(member={dn}))',
      description: "Filter finding the user's groups; {dn} is replaced by the user's DN, escaped per RFC 4515.",
    }),
    group_roles: Type.Array(
      Type.Object(
        {
          group_dn: Type.String({ minLength: 1, description: 'DN of a group, compared without case.' }),
          roles: Type.Array(Type.String({ pattern: '^[a-z][a-z0-9_-]{0,63}$' }), {
            minItems: 1,
            description: 'Roles in the bootstrap organization given to members of this group.',
          }),
        },
        { additionalProperties: false },
      ),
      {
        default: [],
        description:
          "Group → roles in the bootstrap organization, applied at every sign-in: the member's roles there become the union of the roles of the mapped groups they belong to (none: the membership is removed). The directory then owns those roles; changes made in the console last until the next sign-in. The last owner is never demoted this way.",
      },
    ),
    timeout_seconds: seconds('Bound on connecting to and each operation with the directory.', 5),
  },
  { additionalProperties: false },
);

/**
 * One SAML 2.0 identity provider users sign in through (`[saml.<id>]`), Gatehouse acting as the service provider.
 * The service provider's own key pair is never here: it is the files `saml-<id>.key` (PEM private key, mode 0600) and
 * `saml-<id>.crt` (its PEM certificate) in `secrets.dir`; it signs the AuthnRequest and decrypts encrypted assertions.
 */
export const SamlConnectionSchema = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      description: 'Name of the identity provider shown to people (e.g. "Example Corp single sign-on").',
    }),
    idp_metadata_file: text(
      "The identity provider's SAML metadata (XML file; relative paths resolve against the config file): its entityID, the SingleSignOnService for HTTP-Redirect and its signing certificates are read from it at startup. Set this, idp_metadata_url, or the three idp_ keys below; only one of them.",
    ),
    idp_metadata_url: Type.String({
      pattern: '^(https?://.*)?$',
      default: '',
      description:
        "Where the identity provider publishes its SAML metadata; https only (http only for loopback), redirects not followed. Fetched at startup and every idp_metadata_refresh_seconds; a failed refresh keeps the last good copy and logs why. Unreachable at startup: the server starts and this connection answers 503 saml_connection_unavailable until a fetch succeeds. The document's own signature is not checked: trust rests on TLS to this URL.",
    }),
    idp_metadata_refresh_seconds: seconds(
      'How often idp_metadata_url is fetched again (the identity provider may roll its signing key over). Until the first success, fetches are retried every minute at most this often.',
      3600,
      60,
    ),
    idp_entity_id: text(
      "The identity provider's entity id: the Issuer of its assertions must be exactly this. Empty when idp_metadata_file or idp_metadata_url is set.",
    ),
    idp_sso_url: Type.String({
      pattern: '^(https?://.*)?$',
      default: '',
      description:
        "The identity provider's single sign-on service for the HTTP-Redirect binding, where the signed AuthnRequest goes. https only (http only for loopback). Empty when idp_metadata_file or idp_metadata_url is set.",
    }),
    idp_certificate_files: Type.Array(Type.String({ minLength: 1 }), {
      default: [],
      description:
        "PEM certificate(s) the identity provider signs with; relative paths resolve against the config file. Only these keys verify a response or assertion: a key carried in the document (KeyInfo) is never trusted. Two during the identity provider's key rollover. Empty when idp_metadata_file or idp_metadata_url is set.",
    }),
    email_domains: Type.Array(Type.String({ pattern: '^[a-z0-9.-]+\\.[a-z]{2,}$' }), {
      minItems: 1,
      description:
        'Sign-in subjects (email addresses) in these domains are sent to this identity provider instead of a password step. A domain belongs to one connection or directory.',
    }),
    display_name_attribute: text(
      'Attribute (its Name as the identity provider sends it) used as the display name of a new identity. The default "displayName" stands for the common names, first found wins: displayName, urn:oid:2.16.840.1.113730.3.1.241, http://schemas.microsoft.com/identity/claims/displayname, cn, urn:oid:2.5.4.3, then givenName and sn together (by name or OID). Any other value is used alone. None found: the NameID.',
      'displayName',
    ),
    email_attribute: text(
      'Attribute used as the email address of a new identity, recorded unverified: never used to find or link an identity, and it proves nothing until verified here. The default "email" stands for the common names, first found wins: email, mail, urn:oid:0.9.2342.19200300.100.1.3 (what pysaml2 and Shibboleth send), emailAddress, http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress. Any other value is used alone.',
      'email',
    ),
    sign_up: flag(
      'A person the identity provider vouches for without a Gatehouse identity gets one at first sign-in. Off: only identities that already have this connection as a sign-in method sign in.',
      true,
    ),
    mfa_authn_contexts: Type.Array(Type.String({ minLength: 1 }), {
      default: [],
      description:
        "AuthnContextClassRef values that mean the identity provider did multi-factor authentication (e.g. https://refeds.org/profile/mfa). A sign-in whose signed AuthnStatement names one of them is aal2 here; every other sign-in through this connection is aal1. Empty (default): the identity provider's MFA never counts, since it is outside this service's control.",
    }),
  },
  { additionalProperties: false },
);

export const ConfigSchema = Type.Object(
  {
    server: section('The HTTP listener and the public identity of the service.', {
      issuer: text(
        'Public base URL and OIDC issuer, e.g. https://id.example.com. Must be https except for localhost development. Tokens carry it in iss, so changing it invalidates every issued token.',
        'http://localhost:8080',
      ),
      listen: text(
        'Address the listener binds, as host:port. Loopback by default: production sits behind a reverse proxy.',
        '127.0.0.1:8080',
      ),
      trusted_proxy: flag(
        'Require every request to carry exactly one valid X-Forwarded-For address (set by the reverse proxy) and use it as the client IP for logs and rate limits. Off only when clients connect directly.',
      ),
      body_limit_bytes: Type.Integer({
        default: 65_536,
        minimum: 1024,
        maximum: 10_485_760,
        description:
          'Largest accepted request body. Small by default: no identity request needs more, and it bounds parser work.',
      }),
      workers: Type.Union([Type.Literal('auto'), Type.Integer({ minimum: 1, maximum: 256 })], {
        default: 'auto',
        description:
          'Worker processes sharing the listener: "auto" runs one per two available CPUs, at least one (the development instance runs 1, tls.mode acme always runs 1: one challenge listener and renewal schedule). One worker already spreads argon2id and RSA signing over every core through its thread pool and keeps about two busy; more workers add event loops for the cheap part of each request, each for about 100 MB (docs/scaling.md). Each worker keeps its own audit chain and database pool (database.pool_max connections each), and a worker that crashes is restarted. No security impact: workers share nothing but the database.',
      }),
      shutdown_timeout_seconds: seconds(
        'On SIGTERM, how long in-flight requests may run before connections are closed.',
        10,
      ),
    }),
    database: section('PostgreSQL.', {
      url: text(
        'postgres:// or postgresql:// URL. Empty starts an embedded PostgreSQL under the data directory, for evaluation only. The URL may hold a password: keep this file mode 0600.',
      ),
      pool_max: Type.Integer({ default: 10, minimum: 1, maximum: 200, description: 'Connections per process.' }),
      connect_timeout_seconds: seconds('How long to wait for a database connection before a request fails.', 5),
    }),
    data: section('Local state.', {
      dir: text(
        'Directory for local state (the embedded database). Relative paths resolve against the config file.',
        '/var/lib/gatehouse',
      ),
    }),
    secrets: section('Generated secret files (see `gatehouse setup`).', {
      dir: text(
        'Directory holding the generated secret files. It must be mode 0700 and each file 0600; the service refuses to start otherwise.',
        '/etc/gatehouse/secrets',
      ),
    }),
    organization: section('The bootstrap organization and its initial owner, written by `gatehouse setup`.', {
      id: text('Stable tenant identifier of the bootstrap organization.'),
      name: text('Display name of the organization, used in messages.'),
      owner_subject: text('Sign-in subject (email address) of the initial owner.'),
    }),
    branding: section('How the hosted pages (sign-in, sign-up, consent, account, console, errors) look.', {
      accent_color: Type.String({
        default: '#0b5cad',
        pattern: '^#[0-9a-fA-F]{6}$',
        description:
          'Accent colour of buttons and links, as #rrggbb. White text sits on it, so it must keep a WCAG AA contrast of 4.5:1 against white; the service refuses to start otherwise.',
      }),
      logo_file: text(
        'A PNG, JPEG or WebP logo (at most 256 KiB) shown above every hosted page, served from /branding/logo. Relative paths resolve against the config file. SVG is refused because it can carry script. Empty: no logo, the organization name alone.',
      ),
      default_locale: Type.Enum([...LOCALES], {
        default: DEFAULT_LOCALE,
        description:
          'Language of the hosted pages and messages for a person who has not chosen one on their account page and whose browser asks for none of the shipped languages (en, de, fr, es, ja, ar). The administration console stays in English.',
      }),
    }),
    self_service: section('Account self-service.', {
      enabled: flag('Allow people to sign up and manage their own accounts. Also needs delivery to be configured.'),
    }),
    delivery: section('How verification messages leave the service.', {
      kind: Type.Enum(['none', 'smtp', 'direct_mx', 'webhook', 'dev_mailbox'], {
        default: 'none',
        description:
          "none (nothing can be sent; sign-up and recovery refuse), smtp (authenticated relay), direct_mx, webhook, or dev_mailbox. dev_mailbox is for development: messages go through the outbox but are kept in the database instead of being sent, shown on the console's Mailbox page, and each is announced on the terminal with its link. It is refused unless server.issuer is loopback (localhost, 127.0.0.1, [::1]), because whoever reads the terminal or the console could then take over any account. The development instance (`npm start`, .gatehouse/gatehouse.toml) uses it.",
      }),
      from: text(
        'Envelope and header sender, e.g. "Acme Identity <no-reply@id.example.com>". Not needed for dev_mailbox.',
      ),
      smtp: section('Authenticated SMTP relay.', {
        host: text('Relay host name. A placeholder value defers delivery.'),
        port: Type.Integer({
          default: 587,
          minimum: 1,
          maximum: 65535,
          description: 'Relay port (587 STARTTLS, 465 TLS).',
        }),
        security: Type.Enum(['starttls', 'tls'], {
          default: 'starttls',
          description: 'starttls requires the upgrade (no plaintext fallback); tls connects with TLS at once.',
        }),
        username: text('SMTP AUTH user.'),
        password_file: text(
          'File holding the SMTP AUTH password (its whole content; one trailing newline is ignored), mode 0600 like the other secret files: the service refuses a file that group or others can read. A relative name is inside secrets.dir; `gatehouse config delivery --smtp-password-file F` or `--smtp-password-stdin` writes secrets.dir/smtp-password and names it here. The password itself never goes in this file, which is copied, diffed and shown more often than the secrets directory. Never logged.',
        ),
        ca_file: text(
          "PEM file of a private certificate authority that signed the relay's certificate. Empty trusts only the system's public authorities. The relay's certificate is always verified.",
        ),
      }),
      direct_mx: section("Delivery straight to recipients' MX hosts. Needs PTR, SPF, DKIM and DMARC published.", {
        helo_name: text("Name announced in EHLO; must match the host's PTR record."),
        dkim_domain: text('Domain in the DKIM d= tag.'),
        dkim_selector: text('DKIM selector (s= tag).'),
        dkim_private_key_file: text('PEM file with the DKIM private key, mode 0600.'),
      }),
      webhook: section('HTTPS webhook signed per Standard Webhooks with the verification-delivery key.', {
        url: text('https:// endpoint that receives message JSON. A placeholder host defers delivery.'),
        timeout_seconds: Type.Integer({
          default: 10,
          minimum: 1,
          maximum: 60,
          description:
            "Per-attempt timeout. At most 60, well inside the delivery worker's 2-minute send cut-off, so a slow receiver fails the attempt itself rather than being cut off.",
        }),
        ca_file: text(
          "PEM file of a private certificate authority that signed the receiver's certificate. Empty trusts only the system's public authorities. The receiver's certificate is always verified.",
        ),
      }),
    }),
    providers: section(
      'External sign-in providers. Placeholder credentials (0, test, dummy, example, placeholder) defer a provider.',
      {
        google: redirectProvider('Google', 'https://accounts.google.com'),
        github: redirectProvider('GitHub', 'https://github.com'),
        gitlab: redirectProvider('GitLab', 'https://gitlab.com'),
        microsoft: redirectProvider('Microsoft', 'https://login.microsoftonline.com/common/v2.0'),
        apple: section('Redirect sign-in provider Apple.', {
          ...redirectFields('https://appleid.apple.com'),
          team_id: text(
            'Apple Developer team id: the issuer of the client-secret JWT. Apple has no static client secret; instead of provider-apple.secret, the signing key is provider-apple.p8 (the .p8 private key Apple issued, mode 0600) in secrets.dir. A placeholder value defers the provider.',
          ),
          key_id: text("Key id of that private key (the JWT's kid). A placeholder value defers the provider."),
        }),
        discord: redirectProvider('Discord', 'https://discord.com'),
        slack: redirectProvider('Slack', 'https://slack.com'),
        oidc: Type.Array(oidcProvider, {
          default: [],
          description:
            'Any other standards-compliant OpenID Connect provider, found by discovery from its issuer. Its client secret is the file provider-<id>.secret in secrets.dir (mode 0600).',
        }),
        ethereum: section('Sign-In with Ethereum (EIP-4361).', {
          enabled: flag('Offer Ethereum wallet sign-in.'),
          chain_ids: Type.Array(Type.Integer({ minimum: 1 }), {
            default: [1],
            minItems: 1,
            description:
              'Accepted EIP-155 chain ids. The wallet signs for one of them and the chain is part of the sign-in method (eip155:<chain>:<address>), so the same address on two chains is two methods. The first is the one offered by default.',
          }),
          rpc_urls: Type.Array(
            Type.Object(
              {
                chain_id: Type.Integer({ minimum: 1, description: 'The chain this node serves; one of chain_ids.' }),
                url: text(
                  'http(s):// JSON-RPC URL of a node of that chain. A placeholder host defers it (reported, not used).',
                ),
              },
              { additionalProperties: false },
            ),
            {
              default: [],
              description:
                "JSON-RPC nodes, one per chain, used only to check smart-contract wallets' signatures: EIP-1271 (isValidSignature on a deployed wallet) and EIP-6492 (a wallet not yet deployed). Plain accounts (EIP-191) need none. A chain without one refuses smart-wallet signatures with wallet_contract_unverifiable. The node is trusted to answer truthfully, so use your own or a provider you trust; `gatehouse doctor` checks that each answers eth_chainId with its chain.",
            },
          ),
          statement: text(
            'The sentence the wallet shows above the EIP-4361 message (one line, no line breaks). It tells the person what signing does; it grants nothing by itself.',
            'Sign in with your Ethereum wallet. This request does not trigger a blockchain transaction or cost any fees.',
          ),
        }),
        farcaster: section('Sign In With Farcaster.', {
          enabled: flag('Offer Farcaster sign-in.'),
          relay_url: text(
            'https:// base URL of the Farcaster auth relay (AuthKit protocol; http:// only for a loopback host, e.g. a relay stand-in on this machine): the service opens a channel there, the Farcaster app completes it, and the service reads the signed message back from it. The relay is not trusted for the outcome: every message is verified here.',
            'https://relay.farcaster.xyz',
          ),
          rpc_url: text(
            'http(s):// JSON-RPC URL of an OP Mainnet node (chain 10), where the Farcaster ID registry says which custody address owns each fid. The node is trusted to answer truthfully, so use your own or a provider you trust; `gatehouse doctor` checks that it answers eth_chainId 10 and holds the ID registry.',
            'https://mainnet.optimism.io',
          ),
          domain: text(
            "The domain the Sign In With Farcaster message must name; empty means the issuer's host (with port), which is right unless a proxy shows the sign-in page under another host.",
            '',
          ),
        }),
      },
    ),
    tls: section('How HTTPS is terminated.', {
      mode: Type.Enum(['acme', 'files', 'external'], {
        default: 'external',
        description:
          'acme (certificates from an ACME authority, HTTPS on server.listen), files (an existing certificate and key, HTTPS on server.listen), or external (plain HTTP on server.listen; a reverse proxy terminates TLS).',
      }),
      acme_directory_url: text(
        "ACME directory of the certificate authority for mode acme. Let's Encrypt production by default; its staging directory (https://acme-staging-v02.api.letsencrypt.org/directory) issues untrusted certificates without the production rate limits, for trying a setup.",
        'https://acme-v02.api.letsencrypt.org/directory',
      ),
      acme_email: text(
        'Contact address given to the ACME authority (expiry warnings, policy changes). Empty registers the account without one.',
      ),
      acme_ca_file: text(
        "PEM file of a private certificate authority that signed the ACME directory's HTTPS certificate (an internal ACME server, or pebble in tests). Empty trusts only the system's public authorities. Setting it also marks the authority as private: only then may reserved names (localhost, *.test, *.example.com ...) be ordered.",
      ),
      acme_http_listen: text(
        'Plain-HTTP listener of mode acme, as host:port: the certificate authority fetches HTTP-01 challenge responses here (RFC 8555 §8.3; the public authorities use port 80), and every other request is redirected to the https issuer. Binding port 80 needs CAP_NET_BIND_SERVICE.',
        '[::]:80',
      ),
      acme_renew_days: Type.Integer({
        default: 30,
        minimum: 1,
        maximum: 60,
        description:
          "Mode acme renews the certificate once fewer days than this are left (checked hourly; one node at a time). 30 leaves weeks of retries before a 90-day certificate expires, as Let's Encrypt advises.",
      }),
      cert_file: text(
        'PEM certificate chain (leaf first) for mode files. Reloaded on SIGHUP and when the file changes; a file that does not load keeps the previous certificate in service and is logged.',
      ),
      key_file: text('PEM private key of cert_file for mode files, mode 0600. Reloaded with the certificate.'),
    }),
    tokens: section('Token lifetimes.', {
      access_token_ttl_seconds: seconds(
        'Access token (JWT) lifetime. Short, because a JWT is valid until it expires.',
        600,
      ),
      id_token_ttl_seconds: seconds('ID token lifetime.', 600),
      authorization_code_ttl_seconds: seconds(
        'Authorization code lifetime; RFC 6749 §4.1.2 recommends at most 10 minutes.',
        60,
      ),
      refresh_token_idle_ttl_seconds: seconds('A refresh token unused this long expires.', 2_592_000),
      refresh_token_absolute_ttl_seconds: seconds('A refresh token family ends this long after sign-in.', 7_776_000),
      refresh_token_grace_seconds: seconds(
        'Window in which re-presenting a just-rotated refresh token returns the same successor (honest parallel retries) instead of revoking the family. 0 disables.',
        5,
        0,
      ),
      state_cache_seconds: Type.Integer({
        default: 5,
        minimum: 0,
        maximum: 300,
        description:
          "Longest a node answers introspection, userinfo and the gateway from its cached token state (grant or client still live, access token not revoked, identity active and its profile claims; for the gateway, a person's roles and IAL) instead of reading PostgreSQL. Every change to that state sends a NOTIFY in its own transaction and every node drops the entry as soon as the notification arrives, and the cache is bypassed whenever the node's LISTEN connection is down, so this is the bound on staleness only if a notification is delayed or a dead connection goes unnoticed: a revoked token may then be accepted this long. 0 disables the cache (one database round trip per request).",
      }),
    }),
    device_authorization: section('The device authorization grant (RFC 8628): sign-in on devices without a browser.', {
      code_ttl_seconds: Type.Integer({
        default: 600,
        minimum: 60,
        maximum: 1800,
        description:
          'How long a device code and its user code wait for the person to approve on /device. 10 minutes leaves time to find a phone and sign in; longer gives a guesser more time against each live user code (RFC 8628 §5.1).',
      }),
      interval_seconds: Type.Integer({
        default: 5,
        minimum: 1,
        maximum: 60,
        description:
          "The polling interval the device is told (RFC 8628 §3.2; 5 s is the RFC's default). A device that polls faster gets slow_down and 5 s more, remembered for that device code.",
      }),
      failures_per_person: Type.Integer({
        default: 10,
        minimum: 1,
        maximum: 1000,
        description:
          'Wrong user codes one person may enter on /device per 15 minutes, across every node and session; the next attempts answer 429 until the window ends. Typos cost a few; guessing stops here.',
      }),
      failures_overall: Type.Integer({
        default: 1000,
        minimum: 10,
        maximum: 1_000_000,
        description:
          'Wrong user codes all people together may enter on /device per 15 minutes, across every node. Bounds guessing by many accounts at once: with 20^8 possible codes and the default, the chance that some guess in a window hits one of 1000 live codes is below 4 in 100 000. Reaching it refuses every code entry until the window ends (documented trade-off: a flood of guesses can pause device approvals, never other sign-ins).',
      }),
    }),
    dpop: section('DPoP sender-constrained tokens (RFC 9449).', {
      require_nonce: flag(
        'Require a server-provided nonce in every DPoP proof at the token endpoint, the pushed authorization request endpoint and userinfo (RFC 9449 §8, §9): a proof without the current nonce is refused with use_dpop_nonce and the nonce in the DPoP-Nonce header, and clients retry once. Off by default because it costs clients an extra round trip; on, a proof signed ahead of time (by a stolen key used offline) cannot be used, since nonces change every minute. Nonces are derived from the signing secret, so every node serves and accepts the same ones.',
      ),
    }),
    passwords: section('Password hashing (argon2id) and policy.', {
      memory_kib: Type.Integer({
        default: 19_456,
        minimum: 8192,
        maximum: 4_194_304,
        description: 'argon2id memory in KiB (OWASP minimum 19 MiB).',
      }),
      passes: Type.Integer({ default: 2, minimum: 1, maximum: 10, description: 'argon2id iterations.' }),
      parallelism: Type.Integer({ default: 1, minimum: 1, maximum: 16, description: 'argon2id lanes.' }),
      min_length: Type.Integer({
        default: 12,
        minimum: 8,
        maximum: 128,
        description: 'Shortest accepted password (NIST SP 800-63B allows 8; 12 is our floor by default).',
      }),
      max_length: Type.Integer({
        default: 128,
        minimum: 64,
        maximum: 1024,
        description: 'Longest accepted password; bounds hashing work.',
      }),
      minimum_score: Type.Integer({
        default: 3,
        minimum: 0,
        maximum: 4,
        description:
          'Lowest strength score (zxcvbn, 0-4) a new password needs at sign-up, reset, change and owner enrollment. The estimate checks breach-derived password lists, dictionary words and names, repetitions, sequences and keyboard patterns, and the words an attacker tries first for this account: the service name, the organization name and id, and the email address and display name (NIST SP 800-63B §3.1.1.2). 3 (about 10^8 guesses or more) by default: far beyond what the sign-in throttle lets an online attacker try, and it refuses what those lists cover while accepting a few uncommon words. Lower accepts passwords that are guessed sooner, down to 0 (length limits only); 4 also refuses many passwords people can remember. Passwords already set are not re-checked.',
      }),
    }),
    login: section('Sign-in.', {
      require_second_factor: flag(
        'Require a second factor (TOTP or a passkey) of everyone. A person without one who signs in (password, redirect provider, SAML, wallet, directory) gets a session that can only enroll one, at the hosted enrollment page, before it can authorize an application or manage the account. Off by default: a person without a second factor then gets an aal1 session from a single-factor method other than a password (a password alone always asks for TOTP enrollment). Either way, once a person has a second factor every single-factor sign-in must be followed by it.',
        false,
      ),
      starts_per_ip_per_minute: Type.Integer({
        default: 60,
        minimum: 0,
        maximum: 100_000,
        description:
          'POST /auth/login starts admitted per client IP per minute, counted in PostgreSQL across nodes; more get 429 with Retry-After. Generous, because a shared NAT signs many people in; it bounds the decoy rows and lookups one address can cause (the per-account and per-IP failure locks still apply). 0 disables the limit.',
      }),
    }),
    passkeys: section('Passkeys (WebAuthn): registration on the account page and sign-in without a password.', {
      enabled: flag(
        'Offer passkey registration and sign-in. On by default: a user-verified passkey is a phishing-resistant two-factor sign-in. Off refuses both (existing passkeys stay stored but cannot sign in).',
        true,
      ),
      rp_id: text(
        'WebAuthn relying party ID: the issuer host (empty, the default) or a registrable suffix of it, e.g. example.com for id.example.com, so passkeys also work on sibling hosts you add to allowed_origins. Passkeys are bound to it: changing it makes every registered passkey unusable.',
      ),
      allowed_origins: Type.Array(Type.String({ minLength: 1, maxLength: 2048 }), {
        default: [],
        maxItems: 32,
        description:
          'Origins besides the issuer origin whose pages may run passkey ceremonies against this service (each https://host[:port] under rp_id). Empty by default: only the hosted pages. Each origin added can sign people in with their passkeys.',
      }),
    }),
    sessions: section('Browser sessions.', {
      idle_ttl_seconds: seconds('A session unused this long ends.', 43_200),
      absolute_ttl_seconds: seconds('A session ends this long after sign-in, used or not.', 604_800),
    }),
    gateway: section('The policy gateway in front of a product upstream (docs/gateway.md).', {
      enabled: flag(
        'Proxy requests under route_prefix to the upstream, after the route policy checks of [auth]. Off by default: nothing is proxied until an operator says where to.',
      ),
      route_prefix: text(
        'Path prefix the gateway serves, e.g. /app. Requests under it (by whole segments, in the case written here; another case is not proxied) are proxied with their path in canonical form (dot segments resolved, escapes normalised; ambiguous paths are refused, docs/gateway.md "Matching"); every other path stays with the identity service.',
        '/app',
      ),
      upstream_host: text(
        'Upstream host name or address. Loopback by default: the product upstream normally runs beside the service.',
        '127.0.0.1',
      ),
      upstream_port: Type.Integer({ default: 18080, minimum: 1, maximum: 65535, description: 'Upstream port.' }),
      upstream_tls: flag(
        "Connect to the upstream over TLS (certificate verified against the system's authorities). Off by default for a loopback upstream; turn it on whenever the upstream is on another host.",
      ),
      body_limit_bytes: Type.Integer({
        default: 10_485_760,
        minimum: 0,
        maximum: 1_073_741_824,
        description:
          'Largest request body proxied to the upstream (streamed, never buffered); larger requests get 413 payload_too_large. Separate from server.body_limit_bytes because product APIs may take uploads the identity endpoints never need. 0 refuses every request body.',
      }),
      upstream_timeout_seconds: Type.Integer({
        default: 30,
        minimum: 1,
        maximum: 3600,
        description:
          'Longest wait for the upstream to start answering, and longest pause between two pieces of its body; past it the request gets 504 upstream_timeout. Bounds how long a stuck upstream can hold a connection.',
      }),
      strip_request_headers: Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
        default: [],
        maxItems: 100,
        description:
          'Client request headers never forwarded to the upstream, in addition to the built-in list of identity-like headers (docs/gateway.md "Headers": X-User-*, Remote-*, X-Auth-*, OIDC_*, X-Vouch-*, X-Real-IP, X-Original-URL, X-Envoy-Original-*...). Header names, or a name prefix ending in * (X-Acme-Auth-*); compared without case, with _ read as -. Name here any header your upstream trusts to say who is calling, so only the X-Gatehouse-* headers the gateway sets can say it.',
      }),
      token_exchange_client_id: text(
        "The registered client (web or service, cli_…) the gateway acts as when a route policy sets exchange_audience: it exchanges the caller's token for one audienced to the route's API (RFC 8693, docs/gateway.md \"Forwarding an exchanged token\"), named in that token's act claim. Which audiences it may exchange for is that client's token_exchange_audiences (admin API, console); until an administrator allows one, such routes answer 403 token_exchange_refused. Required when any route policy sets exchange_audience; empty otherwise. The start warns and doctor fails when it names no client allowed those audiences.",
      ),
      forward_auth: flag(
        'Answer /auth/forward (any method): the decision endpoint a native proxy (nginx auth_request, HAProxy, Traefik ForwardAuth, Caddy forward_auth) asks before it forwards a request itself. The request it describes (X-Original-Method and X-Original-URI, or X-Forwarded-Method and X-Forwarded-Uri) is judged by exactly the route policies and path rules of the built-in gateway; 200 carries the X-Gatehouse-* identity headers, 401/403 the refusal (docs/gateway.md "Forward auth"). Works with gateway.enabled on or off. Off by default: nothing answers there until an operator puts a proxy in front.',
      ),
      forward_auth_cache_seconds: Type.Integer({
        default: 5,
        minimum: 0,
        maximum: 300,
        description:
          "Longest a proxy may keep an allowed forward-auth answer (its Cache-Control max-age; never past the token's expiry, and never for a DPoP-bound token or a refusal). This bounds how late a revocation, a role taken away or a policy change takes effect behind a proxy that caches the answers (the copy-paste nginx configuration does). 0 sends no-store: every request is asked.",
      }),
      forward_auth_callers: Type.Array(Type.String({ minLength: 1, maxLength: 50 }), {
        default: ['127.0.0.1/32', '::1/128'],
        maxItems: 100,
        description:
          "Addresses (CIDR blocks, or single addresses) of the proxies allowed to call the forward-auth endpoint, compared with the connection's peer address (never X-Forwarded-For); any other caller gets 403 untrusted_caller. The answer reveals who a token belongs to, so only the proxies themselves should reach it. Loopback by default.",
      }),
    }),
    auth: Type.Object(
      {
        enabled: flag(
          'Check route policies before proxying. Off, the gateway is a plain reverse proxy (identity headers are still stripped, none are added) and the service warns at startup.',
        ),
        provider_id: text(
          'Identifier of this identity provider as the gateway names it; informational (shown by `gatehouse doctor`), it changes no decision.',
        ),
        organization_id: text(
          'Organization whose memberships and roles route policies check. Must exist in the database when auth is enabled, or the service refuses to start.',
        ),
        protected_route_prefix: text(
          'Requests under this prefix (which must lie inside gateway.route_prefix) need a matching route policy; a method and path with no policy is refused with 403 no_route_policy and never proxied. Paths under route_prefix but outside it are proxied without a token check.',
          '/app',
        ),
        route_policies: Type.Array(
          Type.Object(
            {
              path_prefix: Type.String({
                description:
                  'Path prefix the policy covers, by whole segments (/app/api covers /app/api and /app/api/x, not /app/apix), in the case written here: a request path that matches it only when case is ignored is refused with 400. Must lie inside protected_route_prefix, in plain form (no //, dot segments, percent-encoding or ";").',
              }),
              methods: Type.Array(Type.Enum([...HTTP_METHODS]), {
                minItems: 1,
                description: 'HTTP methods the policy covers.',
              }),
              required_roles: Type.Array(Type.String({ minLength: 1 }), {
                default: [],
                description: 'Roles in organization_id.',
              }),
              role_match: Type.Enum(['any', 'all'], {
                default: 'any',
                description: 'Whether any or all of required_roles are needed.',
              }),
              minimum_assurance: Type.Enum(['', 'ial1', 'ial2', 'aal1', 'aal2'], {
                default: '',
                description: 'Lowest identity (ial) or authentication (aal) assurance allowed; empty for none.',
              }),
              required_scope: text('Scope the access token must carry; empty for none.'),
              required_audience: text(
                'Audience the access token must carry, written as its aud is: a registered resource in normalized form (https://api.example.com/, with the slash), or the issuer as server.issuer writes it; empty for none. The start warns and doctor fails when it names no registered resource.',
              ),
              exchange_audience: text(
                "Forward, instead of the token the caller presented, one exchanged for this audience (RFC 8693 token exchange as gateway.token_exchange_client_id): the same person, scopes within their grant, an act claim naming the gateway's client, never outliving the presented token. The upstream then holds a token valid only at its own API, not one the caller could use elsewhere. A registered resource in normalized form, not the issuer; needs required_audience (the gateway exchanges only tokens issued for this route). Empty (the default): the presented token is forwarded as it is.",
              ),
            },
            { additionalProperties: false },
          ),
          {
            default: [],
            description:
              'Route policies, checked before proxying. A protected method and path with no policy is refused.',
          },
        ),
      },
      { additionalProperties: false, default: {}, description: 'Route policy for the gateway.' },
    ),
    ldap: Type.Record(Type.String({ pattern: '^[a-z][a-z0-9-]{0,31}$' }), LdapDirectorySchema, {
      default: {},
      description:
        'LDAP directories (`[ldap.<id>]`). The id is stored with every linked identity: renaming it orphans those links.',
    }),
    saml: Type.Record(Type.String({ pattern: '^[a-z][a-z0-9-]{0,31}$' }), SamlConnectionSchema, {
      default: {},
      description:
        "SAML 2.0 identity providers (`[saml.<id>]`). The id is part of the service provider's entity id and URLs, and is stored with every linked identity: renaming it orphans those links and needs the identity provider reconfigured.",
    }),
    logging: section(
      'Logs (JSON on stdout; the development instance writes them to .gatehouse/log unless GATEHOUSE_LOG=stdout).',
      {
        level: Type.Enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
          default: 'info',
          description: 'Lowest level written. Secrets are redacted at every level.',
        }),
      },
    ),
  },
  { additionalProperties: false },
);

export type Config = Static<typeof ConfigSchema>;
export type RoutePolicyConfig = Config['auth']['route_policies'][number];
