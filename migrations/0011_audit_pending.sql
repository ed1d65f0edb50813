-- Audit records of administrative changes, written in the change's own transaction so that a committed change
-- always has its record. A node moves them into its hash chain (audit_events) right after the commit; a record
-- whose node failed to (a crash, a lost connection) is chained by the next node to try: at startup, after any
-- administrative change, or in hourly housekeeping. Rows leave this table in the transaction that chains them.
create table audit_pending (
  id bigserial primary key,
  occurred_at timestamptz not null,
  event text not null,
  actor text,
  subject text,
  client_ip text,
  request_id text,
  details jsonb not null default '{}'
);
