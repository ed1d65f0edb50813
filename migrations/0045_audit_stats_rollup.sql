-- The console's overview (GET /admin/stats, issue 38): sign-ins by method, failed sign-ins, sign-ups and active
-- identities per hour or per day. Counting them from audit_events at request time reads every record in the range,
-- a million rows for a busy month; these tables hold the counts per UTC hour instead, so a year of days is a few
-- thousand rows whatever the traffic.
--
-- Counters are kept per audit chain: a chain is one process's, and its appends are serialized (src/audit/audit.ts),
-- so no two nodes ever wait on the same counter row during a sign-in. The answer sums the chains.
create table audit_stats_hours (
  hour timestamptz not null,
  -- 'signin' (signin.succeeded, without second steps), 'signin_failed' (signin.failed), 'signup' (signup.created).
  kind text not null check (kind in ('signin', 'signin_failed', 'signup')),
  -- The sign-in method (details.method) for 'signin'; '' for the other kinds.
  method text not null,
  chain text not null,
  count bigint not null,
  primary key (hour, kind, method, chain)
-- Room on each page, so a counter's update stays on its page (a HOT update, no index entry) for the hour it counts.
) with (fillfactor = 50);

-- Who signed in, per UTC hour and per UTC day: "active identities" are distinct people, which no sum of hourly
-- counts can give for a day. Rows grow with people active per bucket, not with the number of sign-ins.
create table audit_active_hours (
  hour timestamptz not null,
  identity text not null,
  primary key (hour, identity)
);
create table audit_active_days (
  day timestamptz not null,
  identity text not null,
  primary key (day, identity)
);

-- A second step (method second_factor) completes a sign-in its first factor already counted; it is not another
-- sign-in. The person still counts as active (they did sign in).
create function audit_stats_kind(event text, details jsonb) returns text
  language sql immutable parallel safe
  as $$ select case
    when event = 'signin.succeeded' and coalesce(details->>'method', '') <> 'second_factor' then 'signin'
    when event = 'signin.failed' then 'signin_failed'
    when event = 'signup.created' then 'signup'
  end $$;

-- One statement-level trigger with the inserted rows as a table: a single append (the sign-in path) adds one small
-- statement, and a bulk load (restore's COPY, a migration) folds its rows in one grouped upsert instead of one per
-- row. Rows are upserted in key order, so two statements touching the same rows take their locks in the same order.
-- Most records are no sign-in and leave after one look at the inserted rows.
create function keep_audit_stats() returns trigger language plpgsql as $$
begin
  if not exists (select from appended where event in ('signin.succeeded', 'signin.failed', 'signup.created')) then
    return null;
  end if;
  insert into audit_stats_hours (hour, kind, method, chain, count)
  select date_trunc('hour', occurred_at, 'UTC'), kind, method, chain, count(*)
  from (select occurred_at, chain, audit_stats_kind(event, details) as kind,
               case when event = 'signin.succeeded' then coalesce(details->>'method', 'other') else '' end as method
        from appended) as counted
  where kind is not null
  group by 1, 2, 3, 4
  order by 1, 2, 3, 4
  on conflict (hour, kind, method, chain) do update set count = audit_stats_hours.count + excluded.count;

  insert into audit_active_hours (hour, identity)
  select distinct date_trunc('hour', occurred_at, 'UTC'), subject from appended
  where event = 'signin.succeeded' and subject is not null
  order by 1, 2
  on conflict do nothing;

  insert into audit_active_days (day, identity)
  select distinct date_trunc('day', occurred_at, 'UTC'), subject from appended
  where event = 'signin.succeeded' and subject is not null
  order by 1, 2
  on conflict do nothing;
  return null;
end
$$;

create trigger audit_events_stats after insert on audit_events
  referencing new table as appended
  for each statement execute function keep_audit_stats();

-- The records written before this migration: one pass over the log, as if they had just been appended.
insert into audit_stats_hours (hour, kind, method, chain, count)
select date_trunc('hour', occurred_at, 'UTC'), audit_stats_kind(event, details),
       case when event = 'signin.succeeded' then coalesce(details->>'method', 'other') else '' end, chain, count(*)
from audit_events
where audit_stats_kind(event, details) is not null
group by 1, 2, 3, 4;

insert into audit_active_hours (hour, identity)
select distinct date_trunc('hour', occurred_at, 'UTC'), subject from audit_events
where event = 'signin.succeeded' and subject is not null;

insert into audit_active_days (day, identity)
select distinct date_trunc('day', occurred_at, 'UTC'), subject from audit_events
where event = 'signin.succeeded' and subject is not null;

analyze audit_stats_hours;
analyze audit_active_hours;
analyze audit_active_days;
