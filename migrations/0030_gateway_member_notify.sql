-- Gateway person facts (docs/decisions.md "The gateway caches roles and IAL"). Every node's gateway caches, per
-- person, what a route policy reads besides the token: the identity's state and IAL and its roles in
-- auth.organization_id, under the token state key `member:<identity id>`. These triggers send that key on channel
-- gatehouse_token_state (migration 0009's channel, so the same LISTEN connection and cache receive it) in the same
-- transaction as any change to a membership or an identity, so a role taken away in the console reaches every node
-- when that transaction commits.
create function notify_member_facts() returns trigger language plpgsql as $$
declare
  keys text[];
begin
  if tg_table_name = 'identities' then
    keys := array['member:' || old.id];
  elsif tg_op = 'INSERT' then
    keys := array['member:' || new.identity_id];
  elsif tg_op = 'UPDATE' then
    keys := array['member:' || old.identity_id, 'member:' || new.identity_id];
  else
    keys := array['member:' || old.identity_id];
  end if;
  -- Identical payloads in one transaction are delivered once.
  perform pg_notify('gatehouse_token_state', key) from unnest(keys) as key;
  return null;
end
$$;

-- Roles granted, changed or taken away; memberships ended, directly or by cascade from their organization.
create trigger memberships_notify_member_facts after insert or update or delete on memberships
  for each row execute function notify_member_facts();
-- Suspension, deletion and IAL changes are updates of the identity row.
create trigger identities_notify_member_facts after update or delete on identities
  for each row execute function notify_member_facts();
