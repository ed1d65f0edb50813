-- Redirect-provider transactions (login/federated): one row per round trip to an upstream provider, found by the
-- hash of its `state`, bound to the browser by the hash of a short-lived cookie, consumed (deleted) exactly once at
-- the callback so a replayed callback finds nothing. The provider it started with is recorded: the callback must
-- come from that one (mix-up defence, RFC 9700 §4.4). A link transaction records who asked.
create table federated_transactions (
  state_hash text primary key,
  cookie_hash text not null,
  provider text not null,
  purpose text not null check (purpose in ('sign_in', 'link')),
  identity_id text references identities (id) on delete cascade,
  nonce text not null,
  code_verifier text not null,
  return_to text not null,
  created_at timestamptz not null,
  expires_at timestamptz not null,
  check ((purpose = 'link') = (identity_id is not null))
);
create index federated_transactions_expiry on federated_transactions (expires_at);
