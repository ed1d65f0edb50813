-- The language a person chose for hosted pages and the messages sent to them (account page, "Language"); null
-- means "follow the browser" (Accept-Language, then the organization's default). Only the shape is checked here:
-- which languages are shipped is the application's list (src/i18n/locales.ts), and a language a later version no
-- longer ships reads as null rather than failing.
alter table identities add column locale text check (locale is null or locale ~ '^[a-z]{2,3}(-[A-Za-z0-9]{1,8})*$');
