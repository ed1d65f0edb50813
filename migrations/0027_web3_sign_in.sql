-- Sign-In with Ethereum messages (login/web3): one row per EIP-4361 message the server issued, keyed by its nonce,
-- bound to the browser by the hash of the login cookie. The exact text is kept so completion accepts only that
-- message byte for byte. consumed_at is set once by an atomic UPDATE ... RETURNING, so a replayed or concurrent
-- completion finds nothing. A link records who asked.
create table web3_messages (
  nonce text primary key,
  cookie_hash text not null,
  provider text not null,
  purpose text not null check (purpose in ('sign_in', 'link')),
  identity_id text references identities (id) on delete cascade,
  message text not null,
  created_at timestamptz not null,
  expires_at timestamptz not null,
  consumed_at timestamptz,
  check ((purpose = 'link') = (identity_id is not null))
);
create index web3_messages_expiry on web3_messages (expires_at);
