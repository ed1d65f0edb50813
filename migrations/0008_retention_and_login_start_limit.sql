-- Fixed-window request counters per key (e.g. POST /auth/login starts per client IP), shared by every node so a
-- limit holds behind a load balancer. Rows whose window ended are purged by housekeeping.
create table request_counters (
  bucket text not null,
  key text not null,
  window_start timestamptz not null,
  count integer not null,
  primary key (bucket, key)
);
create index request_counters_window on request_counters (window_start);

-- Housekeeping deletes ended sessions, expired login transactions and stale throttle rows; these indexes keep the
-- hourly purge from scanning whole tables.
create index sessions_idle_expires on sessions (idle_expires_at);
create index sessions_revoked on sessions (revoked_at) where revoked_at is not null;
create index login_throttle_updated on login_throttle (updated_at);
