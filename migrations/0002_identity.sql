-- Identity core: one canonical identity per person; every way of signing in is a row pointing at it.

create table organizations (
  id text primary key,
  name text not null,
  created_at timestamptz not null default now()
);

-- id is the OIDC `sub`: opaque, stable, never reused (rows are marked deleted, never removed and re-created).
-- The `usr_` prefix keeps it disjoint from client ids (`cli_`), RFC 9700 §4.15.
create table identities (
  id text primary key check (id like 'usr\_%'),
  state text not null default 'active'
    check (state in ('pending_verification', 'active', 'suspended', 'deleted')),
  display_name text not null default '',
  assurance text not null default 'ial1' check (assurance in ('ial1', 'ial2')),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

-- Email addresses are records of their own. The same address may sit at two identities: nothing links by email.
create table emails (
  id bigserial primary key,
  identity_id text not null references identities (id) on delete cascade,
  address text not null,
  normalized text not null,
  is_primary boolean not null default false,
  verified_at timestamptz,
  created_at timestamptz not null default now(),
  unique (identity_id, normalized)
);
create unique index emails_one_primary on emails (identity_id) where is_primary;
create index emails_normalized on emails (normalized);

create table memberships (
  organization_id text not null references organizations (id) on delete cascade,
  identity_id text not null references identities (id) on delete cascade,
  roles text[] not null default '{}',
  created_at timestamptz not null default now(),
  primary key (organization_id, identity_id)
);
create index memberships_identity on memberships (identity_id);

-- Every sign-in method kind uses this table. (kind, provider, external_subject) is unique, so one external
-- account can belong to one identity only; attaching it elsewhere is a conflict, never a merge.
create table sign_in_methods (
  id bigserial primary key,
  identity_id text not null references identities (id) on delete cascade,
  kind text not null check (kind in ('password', 'passkey', 'federated', 'web3', 'saml', 'ldap')),
  provider text not null,
  external_subject text not null,
  label text not null default '',
  created_at timestamptz not null default now(),
  last_used_at timestamptz,
  unique (kind, provider, external_subject)
);
create index sign_in_methods_identity on sign_in_methods (identity_id);
