-- The administration API lists audit records newest first (by id) filtered by event, actor or subject. An index per
-- filter that ends in id makes each page one backward range scan, however rare the event or busy the log.
create index audit_events_event_id on audit_events (event, id);
create index audit_events_actor_id on audit_events (actor, id) where actor is not null;
create index audit_events_subject_id on audit_events (subject, id) where subject is not null;
-- Covered by audit_events_subject_id (same leading column); one index less to maintain on every sign-in.
drop index audit_events_subject;
