-- Sign In With Farcaster channels (login/web3): one row per relay channel the server opened, keyed by the nonce the
-- server chose for it, bound to the browser by the hash of the login cookie. The relay's channel token is kept so
-- only the server reads the channel's outcome. consumed_at is set once by an atomic UPDATE ... RETURNING when the
-- relay reports a signed message, so a replayed or concurrent completion finds nothing. A link records who asked.
create table farcaster_channels (
  nonce text primary key,
  cookie_hash text not null,
  channel_token text not null,
  purpose text not null check (purpose in ('sign_in', 'link')),
  identity_id text references identities (id) on delete cascade,
  created_at timestamptz not null,
  expires_at timestamptz not null,
  consumed_at timestamptz,
  check ((purpose = 'link') = (identity_id is not null))
);
create index farcaster_channels_expiry on farcaster_channels (expires_at);
