-- Verification issuance and the delivery outbox (issue 5). Verification is separate from delivery (SPEC.md
-- "Verification delivery"): a verification row holds only the SHA-256 of its one-time secret; the message that
-- carries the secret sits in the outbox, sealed, until it is sent or given up, and is then blanked.

create table verifications (
  id text primary key check (id like 'vrf\_%'),
  purpose text not null check (purpose in ('signup', 'email_change', 'password_reset')),
  identity_id text not null references identities (id) on delete cascade,
  -- RFC 5321 §4.5.3.1.3: a path is at most 256 octets including the angle brackets.
  email text not null check (length(email) between 3 and 254),
  secret_hash text not null,
  attempts integer not null default 0 check (attempts >= 0),
  max_attempts integer not null check (max_attempts between 1 and 100),
  created_at timestamptz not null,
  expires_at timestamptz not null,
  consumed_at timestamptz
);
create index verifications_open on verifications (identity_id, purpose) where consumed_at is null;

create table outbox_messages (
  id text primary key check (id like 'msg\_%'),
  template text not null,
  recipient text not null check (length(recipient) between 3 and 254),
  -- AES-256-GCM sealed {subject, text, html}; null once the message is sent or dead, so a verification secret
  -- lives in the database only while it may still be delivered.
  sealed_body text,
  state text not null default 'pending' check (state in ('pending', 'sent', 'dead')),
  attempts integer not null default 0,
  next_attempt_at timestamptz not null,
  -- A claim is a lease: a worker that dies mid-send loses it when claim_expires_at passes.
  claimed_by text,
  claim_expires_at timestamptz,
  last_error text,
  created_at timestamptz not null,
  finished_at timestamptz,
  check ((state = 'pending') = (sealed_body is not null))
);
create index outbox_messages_due on outbox_messages (next_attempt_at) where state = 'pending';
