-- RFC 8693 token exchange (docs/oauth.md "Token exchange"): the registered resource audiences a confidential client
-- may exchange a person's access token for. Empty, the default, means the client may not use the grant at all, so
-- every existing client keeps refusing it until an administrator allows an audience. A constant default is stored in
-- the catalogue only: no table rewrite.
alter table oauth_clients add column token_exchange_audiences text[] not null default '{}';
