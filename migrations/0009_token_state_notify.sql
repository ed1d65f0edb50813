-- Token state invalidation (docs/decisions.md "Token state cache"). Every node caches, for a few seconds, what
-- introspection and userinfo read: a grant is unrevoked, an access token (jti) is not revoked, a client exists, an
-- identity is active and its profile claims. These triggers send a NOTIFY on channel gatehouse_token_state in the
-- same transaction as every change that can end or alter such a fact, so no code path can forget it; PostgreSQL
-- delivers it to every listening node only when that transaction commits. The payload is `kind:id`.
create function notify_token_state() returns trigger language plpgsql as $$
declare
  keys text[];
begin
  if tg_table_name = 'oauth_grants' then
    keys := array['grant:' || old.id];
  elsif tg_table_name = 'oauth_revoked_access_tokens' then
    keys := array['jti:' || new.jti];
  elsif tg_table_name = 'oauth_clients' then
    keys := array['client:' || old.id];
  elsif tg_table_name = 'identities' then
    keys := array['identity:' || old.id];
  elsif tg_table_name = 'emails' and tg_op = 'INSERT' then
    keys := array['identity:' || new.identity_id];
  elsif tg_table_name = 'emails' and tg_op = 'UPDATE' then
    keys := array['identity:' || old.identity_id, 'identity:' || new.identity_id];
  elsif tg_table_name = 'emails' then
    keys := array['identity:' || old.identity_id];
  end if;
  -- Identical payloads in one transaction are delivered once.
  perform pg_notify('gatehouse_token_state', key) from unnest(keys) as key;
  return null;
end
$$;

-- Grants: revocation, deletion (directly or by cascade from their client or identity); any update, so a column
-- added later cannot be missed. Grant rows change only at revocation.
create trigger oauth_grants_notify_token_state after update or delete on oauth_grants
  for each row execute function notify_token_state();
create trigger oauth_revoked_access_tokens_notify_token_state after insert on oauth_revoked_access_tokens
  for each row execute function notify_token_state();
-- A client-credentials token lives as long as its client exists.
create trigger oauth_clients_notify_token_state after delete on oauth_clients
  for each row execute function notify_token_state();
-- State and display name feed userinfo; updates of other columns (updated_at, assurance...) notify too, which is
-- cheap: identities change rarely.
create trigger identities_notify_token_state after update or delete on identities
  for each row execute function notify_token_state();
-- The primary email address and its verification feed userinfo's email claims.
create trigger emails_notify_token_state after insert or update or delete on emails
  for each row execute function notify_token_state();
