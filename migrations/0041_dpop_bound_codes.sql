-- RFC 9449 §10: an authorization code bound to a DPoP key (the dpop_jkt authorization request parameter, or the key of
-- the proof that came with its pushed request, §10.1) is exchanged only with a proof by that key. Null: unbound.
-- A pushed request keeps its dpop_jkt among its other parameters (oauth_pushed_requests.params).
alter table oauth_authorization_codes add column dpop_jkt text;
