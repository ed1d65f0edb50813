-- A session may be partial: it waits for a second step before it can authorize or manage the account (DESIGN.md
-- "Assurance is about the person, not the method"; docs/identity.md "Second step"). `enrollment`: the identity has
-- no second factor and must enroll one (a password sign-in without TOTP, or an organization that requires one of
-- everyone); `second_factor`: the identity has one, and a single-factor sign-in must be followed by it.
alter table sessions add column pending_step text check (pending_step in ('enrollment', 'second_factor'));
update sessions set pending_step = 'enrollment' where enrollment_only;
-- Sessions that a single factor opened for an identity that already had a second factor were the bypass this
-- closes: they keep working only once the second step is done.
update sessions s set pending_step = 'second_factor'
where s.revoked_at is null and s.aal = 'aal1' and s.pending_step is null
  and (exists (select 1 from totp_credentials t where t.identity_id = s.identity_id and t.confirmed_at is not null)
       or exists (select 1 from passkey_credentials p where p.identity_id = s.identity_id));
alter table sessions drop column enrollment_only;
