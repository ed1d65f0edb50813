-- Grants that a single factor obtained while the identity already held a second factor (docs/identity.md "Second
-- step"; docs/decisions.md "Grants from before step-up"). Migration 0038 made the sessions of that bypass wait for
-- the second step, but what they had been issued lived on: a grant's refresh tokens keep renewing access for as long
-- as the grant lives. Such a grant is told apart by its stored facts: `acr` is the session's aal at issue, so
-- 'aal1', and it was created at or after the earliest second factor the identity still holds (a TOTP authenticator's
-- confirmation, a passkey's registration). Those are revoked, so their refresh tokens and access tokens stop working
-- (the token-state trigger tells every node); the client sends the person to sign in again, now with the second step.
-- Left alone: aal2 grants, grants of identities without a second factor, and aal1 grants from before the factor,
-- which were within the rules when issued (adding a factor later does not end grants either). Unused codes of the
-- same kind are deleted: their exchange then fails as for any unknown code.
create temporary table step_up_bypass_grants on commit drop as
with factor_since as (
  select identity_id, min(since) as since
  from (select identity_id, confirmed_at as since from totp_credentials where confirmed_at is not null
        union all
        select identity_id, created_at from passkey_credentials) factors
  group by identity_id
)
select g.id, g.client_id
from oauth_grants g join factor_since f on f.identity_id = g.identity_id
where g.revoked_at is null and g.acr = 'aal1' and g.created_at >= f.since;

update oauth_grants set revoked_at = now() where id in (select id from step_up_bypass_grants);

-- The audit record every revoked grant gets (src/oauth/grant-revoked-audit.ts), chained by the first node to start.
insert into audit_pending (occurred_at, event, actor, subject, details)
select now(), 'oauth.grant_revoked', client_id, id, '{"reason": "second_factor_bypass"}'::jsonb
from step_up_bypass_grants;

delete from oauth_authorization_codes c
where c.used_at is null and c.acr = 'aal1'
  and c.created_at >= (select min(since)
                       from (select confirmed_at as since from totp_credentials
                             where identity_id = c.identity_id and confirmed_at is not null
                             union all
                             select created_at from passkey_credentials where identity_id = c.identity_id) factors);
