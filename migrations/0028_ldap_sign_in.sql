-- A login transaction started for a subject in an LDAP directory's email domain: the id of that `[ldap.<id>]`
-- directory, whose bind checks the password instead of a local password hash. Null for local sign-in.
alter table login_transactions add column directory text;
