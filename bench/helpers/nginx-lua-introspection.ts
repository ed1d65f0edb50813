// The reference users deploy instead of a gateway: nginx in front of the upstream, authorizing each request with a
// few lines of Lua (Debian's libnginx-mod-http-lua and lua-cjson) that ask Gatehouse's introspection endpoint and
// keep the answer for 30 s in a shared dictionary, then check the same scope and audience the gateway's policy
// demands and pass the identity on. A revocation therefore takes up to 30 s to act here.

export interface LuaIntrospectionTargets {
  port: number;
  /** Gatehouse, host:port. */
  gatehouse: string;
  /** The upstream, host:port. */
  upstream: string;
  clientId: string;
  clientSecret: string;
  scope: string;
  audience: string;
}

/** The `http {}` contents of the reference's nginx.conf. */
export function luaIntrospectionConfig(t: LuaIntrospectionTargets): string {
  return `
lua_shared_dict introspection 10m;
upstream gatehouse { server ${t.gatehouse}; keepalive 32; }
upstream product { server ${t.upstream}; keepalive 32; }
server {
  listen 127.0.0.1:${t.port};
  location /app/ {
    access_by_lua_block {
      local cjson = require "cjson.safe"
      local header = ngx.var.http_authorization
      if not header or header:sub(1, 7) ~= "Bearer " then return ngx.exit(401) end
      local token = header:sub(8)
      local cache = ngx.shared.introspection
      local known = cache:get(token)
      if not known then
        local answer = ngx.location.capture("/_introspect", { method = ngx.HTTP_POST,
          body = "client_id=${t.clientId}&client_secret=${t.clientSecret}&token=" .. ngx.escape_uri(token) })
        if answer.status ~= 200 then return ngx.exit(502) end
        local claims = cjson.decode(answer.body) or {}
        known = cjson.encode({ active = claims.active == true, sub = claims.sub, client_id = claims.client_id,
          scope = claims.scope or "", aud = claims.aud })
        cache:set(token, known, 30)
      end
      local claims = cjson.decode(known)
      if not claims.active then return ngx.exit(401) end
      local audiences = type(claims.aud) == "table" and claims.aud or { claims.aud }
      local audience_ok = false
      for _, aud in ipairs(audiences) do if aud == "${t.audience}" then audience_ok = true end end
      if not audience_ok or not (" " .. claims.scope .. " "):find(" ${t.scope} ", 1, true) then return ngx.exit(403) end
      ngx.req.set_header("X-Gatehouse-Subject", claims.sub)
      ngx.req.set_header("X-Gatehouse-Client", claims.client_id)
      ngx.req.set_header("X-Gatehouse-Scope", claims.scope)
    }
    proxy_set_header X-Forwarded-For $remote_addr;
    proxy_http_version 1.1;
    proxy_set_header Connection "";
    proxy_pass http://product;
  }
  location = /_introspect {
    internal;
    proxy_set_header Content-Type application/x-www-form-urlencoded;
    proxy_set_header Authorization "";
    proxy_http_version 1.1;
    proxy_set_header Connection "";
    proxy_pass http://gatehouse/oauth/introspect;
  }
}
`;
}
