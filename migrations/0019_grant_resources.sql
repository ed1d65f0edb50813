-- RFC 8707 resource indicators of a user's authorization: the registered resource audiences the authorization
-- request named, carried from the code to its grant, so each token of the grant can be audienced to one of them
-- (and never to a resource the person was not asked about). Empty for a sign-in without `resource`.
alter table oauth_authorization_codes add column resources text[] not null default '{}';
alter table oauth_grants add column resources text[] not null default '{}';
