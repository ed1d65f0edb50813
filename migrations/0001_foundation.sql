-- Foundation: the installation record that setup reconciles, and the audit log.

-- One row: what setup bootstrapped. The database is authoritative for it (SPEC.md "Incomplete setup rerun").
create table installation (
  singleton boolean primary key default true check (singleton),
  organization_id text not null,
  owner_identity_id text not null,
  owner_subject text not null,
  created_at timestamptz not null default now(),
  setup_completed_at timestamptz
);

-- Hash-chained audit records: one chain per node so writers never wait on a global lock (DESIGN.md "Audit chain").
-- hash = HMAC(audit key, prev_hash || canonical record); the head row lets the verifier notice a deleted tail.
create table audit_events (
  id bigserial primary key,
  chain text not null,
  seq bigint not null,
  occurred_at timestamptz not null,
  event text not null,
  actor text,
  subject text,
  client_ip text,
  request_id text,
  details jsonb not null default '{}',
  prev_hash text not null,
  hash text not null,
  unique (chain, seq)
);
create index audit_events_occurred_at on audit_events (occurred_at);
create index audit_events_subject on audit_events (subject) where subject is not null;

create table audit_chain_heads (
  chain text primary key,
  seq bigint not null,
  hash text not null,
  updated_at timestamptz not null default now()
);
