-- Browsers that have signed in to an account before get a failure budget of their own (the device cookie,
-- src/login/local/known-device.ts): their attempts are counted under scope 'device', keyed by the cookie's random
-- id, so failures from unknown clients ('account' scope) never lock them, and their own failures lock only them.
alter table login_throttle drop constraint login_throttle_scope_check;
alter table login_throttle add constraint login_throttle_scope_check check (scope in ('account', 'ip', 'device'));
