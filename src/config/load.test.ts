import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { scratchDir } from '../../test/helpers/config.ts';
import { DEVELOPMENT_CONFIG } from './development-file.ts';
import { ConfigError } from './errors.ts';
import { loadConfig, parseConfig } from './load.ts';

const FILE = '/etc/gatehouse/gatehouse.toml';
const parse = (toml: string, env: Record<string, string> = {}) =>
  parseConfig(toml, FILE, { baseDir: '/etc/gatehouse', development: false, env });

function problemsOf(toml: string, env: Record<string, string> = {}): string[] {
  try {
    parse(toml, env);
  } catch (error) {
    assert.ok(error instanceof ConfigError, `expected ConfigError, got ${error}`);
    assert.equal(error.file, FILE);
    assert.ok(error.message.startsWith(`Invalid configuration in ${FILE}:`));
    return error.problems.map((p) => `${p.key}: ${p.problem}`);
  }
  assert.fail('the configuration was accepted');
}

describe('configuration file', () => {
  const invalid: [string, string, Record<string, string>?][] = [
    ['[server]\nlisten = 8080', 'server.listen: must be a string'],
    ['[server]\ntrusted_proxy = "yes"', 'server.trusted_proxy: must be a boolean'],
    ['[server]\nbody_limit_bytes = 10', 'server.body_limit_bytes: must be at least 1024'],
    ['[server]\nbogus = 1', 'server.bogus: unknown key'],
    ['[nonsense]\nx = 1', 'nonsense: unknown key'],
    ['server = 5', 'server: must be a table'],
    ['[server]\nlisten = "8080"', 'server.listen: must be host:port, e.g. 127.0.0.1:8080 or [::1]:8080'],
    [
      '[server]\nissuer = "http://id.acme.com"',
      'server.issuer: must use https (plain http is allowed only for localhost)',
    ],
    ['[server]\nissuer = "https://id.acme.com/"', 'server.issuer: must not end with a slash'],
    ['[server]\nissuer = "id.acme.com"', 'server.issuer: must be an absolute URL such as https://id.example.com'],
    ['[database]\nurl = "mysql://db/gatehouse"', 'database.url: must start with postgres:// or postgresql://'],
    ['[database]\nurl = "https://db/gatehouse"', 'database.url: must start with postgres:// or postgresql://'],
    [
      '[organization]\nid = "Not A Slug"',
      'organization.id: must be 1-63 characters of a-z, 0-9, ".", "_" or "-", starting with a letter or digit',
    ],
    [
      '[organization]\nname = "Acme \u202Ecitobor"',
      'organization.name: remove the invisible character U+202E; control, formatting and text-direction characters are not allowed',
    ],
    [
      '[delivery]\nkind = "pigeon"',
      'delivery.kind: must be one of "none", "smtp", "direct_mx", "webhook", "dev_mailbox"',
    ],
    ['[delivery]\nkind = "smtp"\nfrom = "a@b.c"', 'delivery.smtp.host: is required when delivery.kind is "smtp"'],
    [
      '[delivery]\nkind = "webhook"\nfrom = "a@b.c"\n[delivery.webhook]\nurl = "http://hooks.acme.com/x"',
      'delivery.webhook.url: must be an https:// URL (http only for localhost)',
    ],
    [
      '[providers.github]\nenabled = true\nclient_id = "abc"\nclient_secret = "inline-secret"',
      'providers.github.client_secret: unknown key',
    ],
    ['[providers.github]\nenabled = true', 'providers.github.client_id: is required when the provider is enabled'],
    [
      '[providers.gitlab]\nissuer = "http://gitlab.acme.dev"',
      'providers.gitlab.issuer: must be an https:// URL (http only for localhost)',
    ],
    [
      '[[providers.oidc]]\nid = "github"\nname = "Corp"\nissuer = "https://sso.acme.dev"\nclient_id = "g"',
      'providers.oidc[0].id: "github" is already taken by another provider',
    ],
    ['[providers.myspace]\nenabled = true', 'providers.myspace: unknown key'],
    [
      '[providers.farcaster]\nenabled = true\nrpc_url = "ws://op.acme.dev"',
      'providers.farcaster.rpc_url: must be an http:// or https:// URL',
    ],
    [
      '[providers.farcaster]\nenabled = true\nrelay_url = "http://relay.acme.dev"',
      'providers.farcaster.relay_url: must be an https:// URL (http only for localhost)',
    ],
    [
      '[providers.farcaster]\nenabled = true\nrelay_url = "http://127.0.0.1.relay.acme.dev:8788"',
      'providers.farcaster.relay_url: must be an https:// URL (http only for localhost)',
    ],
    [
      '[providers.farcaster]\nenabled = true\nrelay_url = "ws://127.0.0.1:8788"',
      'providers.farcaster.relay_url: must be an https:// URL (http only for localhost)',
    ],
    [
      '[providers.farcaster]\ndomain = "https://id.acme.dev/signin"',
      'providers.farcaster.domain: must be a host name, optionally with :port (no scheme or path)',
    ],
    [
      '[server]\nissuer = "https://id.acme.com"\n[tls]\nmode = "files"\ncert_file = "/c.pem"',
      'tls.key_file: is required when tls.mode is "files"',
    ],
    [
      '[tls]\nmode = "files"\ncert_file = "/c.pem"\nkey_file = "/c.key"',
      'server.issuer: must be https:// when tls.mode is "files" (this listener serves HTTPS)',
    ],
    [
      '[server]\nissuer = "https://id.acme.com"\n[tls]\nmode = "acme"\nacme_http_listen = "80"',
      'tls.acme_http_listen: must be host:port, e.g. [::]:80',
    ],
    ['[gateway]\nupstream_port = 70000', 'gateway.upstream_port: must be at most 65535'],
    ['[gateway]\nroute_prefix = "app"', 'gateway.route_prefix: must start with "/"'],
    ['[gateway]\nupstream_tls = "yes"', 'gateway.upstream_tls: must be a boolean'],
    ['[gateway]\nupstream_port = "80"', 'gateway.upstream_port: must be an integer'],
    ['[auth]\nenabled = 1', 'auth.enabled: must be a boolean'],
    ['[auth]\nroute_policies = 1', 'auth.route_policies: must be an array'],
    [
      '[[auth.route_policies]]\npath_prefix = "/app/a"\nmethods = ["GET"]\nrequired_roles = "admin"',
      'auth.route_policies[0].required_roles: must be an array',
    ],
    ['[tls]\nmode = "self-signed"', 'tls.mode: must be one of "acme", "files", "external"'],
    [
      '[[auth.route_policies]]\npath_prefix = "/app/x"\nmethods = ["GET", "FETCH"]',
      'auth.route_policies[0].methods[1]: must be one of "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"',
    ],
    ['[[auth.route_policies]]\nmethods = ["GET"]', 'auth.route_policies[0].path_prefix: is required'],
    [
      '[[auth.route_policies]]\npath_prefix = "/app/a"\nmethods = []',
      'auth.route_policies[0].methods: must have at least 1 item(s)',
    ],
    [
      '[[auth.route_policies]]\npath_prefix = "/app/a"\nmethods = ["GET"]\nrole_match = "most"',
      'auth.route_policies[0].role_match: must be one of "any", "all"',
    ],
    [
      '[[auth.route_policies]]\npath_prefix = "/app/a"\nmethods = ["GET"]\nminimum_assurance = "high"',
      'auth.route_policies[0].minimum_assurance: must be one of "", "ial1", "ial2", "aal1", "aal2"',
    ],
    [
      '[[auth.route_policies]]\npath_prefix = "/app/a"\nmethods = ["GET"]\nrequired_audience = "not a uri"',
      'auth.route_policies[0].required_audience: must be an absolute URI, e.g. https://api.example.com/',
    ],
    [
      // Registered resources are written in this form, and a token's aud carries it: without the slash none matches.
      '[[auth.route_policies]]\npath_prefix = "/app/a"\nmethods = ["GET"]\nrequired_audience = "https://API.acme.test"',
      'auth.route_policies[0].required_audience: must be written in normalized form: https://api.acme.test/',
    ],
    [
      '[[auth.route_policies]]\npath_prefix = "/app/a"\nmethods = ["GET"]\nrequired_audience = "http://localhost:8080/"',
      "auth.route_policies[0].required_audience: must be the issuer exactly as server.issuer writes it (http://localhost:8080), the audience of the service's own tokens",
    ],
    [
      '[gateway]\ntoken_exchange_client_id = "cli_x"\n[[auth.route_policies]]\npath_prefix = "/app/a"\nmethods = ["GET"]\nexchange_audience = "https://billing.acme.test/"',
      'auth.route_policies[0].exchange_audience: needs required_audience: the gateway exchanges only tokens issued for this route',
    ],
    [
      '[[auth.route_policies]]\npath_prefix = "/app/a"\nmethods = ["GET"]\nrequired_audience = "https://app.acme.test/"\nexchange_audience = "https://billing.acme.test/"',
      'auth.route_policies[0].exchange_audience: needs gateway.token_exchange_client_id: the client the gateway exchanges tokens as',
    ],
    [
      '[gateway]\ntoken_exchange_client_id = "cli_x"\n[[auth.route_policies]]\npath_prefix = "/app/a"\nmethods = ["GET"]\nrequired_audience = "https://app.acme.test/"\nexchange_audience = "http://localhost:8080"',
      "auth.route_policies[0].exchange_audience: must be a registered resource, not the issuer: the service's own tokens are not exchanged for",
    ],
    [
      '[gateway]\ntoken_exchange_client_id = "cli_x"\n[[auth.route_policies]]\npath_prefix = "/app/a"\nmethods = ["GET"]\nrequired_audience = "https://app.acme.test/"\nexchange_audience = "https://Billing.acme.test"',
      'auth.route_policies[0].exchange_audience: must be written in normalized form: https://billing.acme.test/',
    ],
    [
      '[gateway]\ntoken_exchange_client_id = "gateway"',
      'gateway.token_exchange_client_id: must be a client id as the admin API shows it (cli_…)',
    ],
    [
      '[[auth.route_policies]]\npath_prefix = "/app/a"\nmethods = ["GET"]\nrequired_scope = "two scopes"',
      'auth.route_policies[0].required_scope: must be a single scope token (RFC 6749 §3.3)',
    ],
    [
      '[[auth.route_policies]]\npath_prefix = "/app/a"\nmethods = ["GET"]\nsurprise = true',
      'auth.route_policies[0].surprise: unknown key',
    ],
    [
      '[[auth.route_policies]]\npath_prefix = "/app/a"\nmethods = ["GET"]\n[[auth.route_policies]]\npath_prefix = "/APP/a/"\nmethods = ["POST", "GET"]\nrequired_scope = "x"',
      'auth.route_policies[1].methods: GET /app/a is also matched by auth.route_policies[0] with different requirements (ambiguous)',
    ],
    [
      '[[auth.route_policies]]\npath_prefix = "/api/admin"\nmethods = ["GET"]',
      'auth.route_policies[0].path_prefix: must lie inside auth.protected_route_prefix (/app)',
    ],
    [
      '[[auth.route_policies]]\npath_prefix = "/app/a/../b"\nmethods = ["GET"]',
      'auth.route_policies[0].path_prefix: must be a plain path: no empty ("//"), "." or ".." segments',
    ],
    [
      '[[auth.route_policies]]\npath_prefix = "/app//b"\nmethods = ["GET"]',
      'auth.route_policies[0].path_prefix: must be a plain path: no empty ("//"), "." or ".." segments',
    ],
    [
      '[[auth.route_policies]]\npath_prefix = "/app/a%2Fb"\nmethods = ["GET"]',
      'auth.route_policies[0].path_prefix: must be a plain path: no percent-encoding, backslash, query, fragment or spaces',
    ],
    [
      '[gateway]\nenabled = true\nroute_prefix = "/app"\n[auth]\nenabled = true\norganization_id = "acme"\nprotected_route_prefix = "/api"',
      'auth.protected_route_prefix: must lie inside gateway.route_prefix (/app)',
    ],
    [
      '[gateway]\nroute_prefix = "/OAuth/x"',
      'gateway.route_prefix: must not be "/" or lie under a path the service itself serves (/.well-known, /oauth, /auth, /account, /admin, /health, /assets, /metrics, /signin, /signup, /enroll, /forgot-password, /settings)',
    ],
    ['[gateway]\nbody_limit_bytes = -1', 'gateway.body_limit_bytes: must be at least 0'],
    [
      '[gateway]\nstrip_request_headers = ["X-Acme-*", "X Acme"]',
      'gateway.strip_request_headers[1]: must be a header name, or a name prefix ending in "*"',
    ],
    [
      '[gateway]\nstrip_request_headers = ["X-Acme-*-Id"]',
      'gateway.strip_request_headers[0]: must be a header name, or a name prefix ending in "*"',
    ],
    [
      '[gateway]\nenabled = true\nroute_prefix = "/app;v=1"',
      'gateway.route_prefix: must be a plain path: letters, digits and - . _ ~ ! $ & \' ( ) * + , = : @ only (no ";" or brackets)',
    ],
    [
      '[gateway]\nenabled = true\nroute_prefix = "/app"\n[auth]\nenabled = true\norganization_id = "acme"\nprotected_route_prefix = "/app/api."',
      'auth.protected_route_prefix: must be a plain path: no segment ending in "." or starting with ".."',
    ],
    ['[gateway]\nupstream_timeout_seconds = 0', 'gateway.upstream_timeout_seconds: must be at least 1'],
    ['[auth]\nenabled = true', 'auth.organization_id: is required when auth.enabled is true'],
    [
      '[[auth.route_policies]]\npath_prefix = "/app/a"\nmethods = ["GET"]\nrequired_audience = "/relative/api"',
      'auth.route_policies[0].required_audience: must be an absolute URI, e.g. https://api.example.com/',
    ],
    ['', 'GATEHOUSE_LISTEN: must be host:port, e.g. 127.0.0.1:8080 or [::1]:8080', { GATEHOUSE_LISTEN: 'everywhere' }],
    ['', 'DATABASE_URL: must start with postgres:// or postgresql://', { DATABASE_URL: 'sqlite:///tmp/x' }],
    [
      '[server]\nissuer = "https://id.acme.com"\n[delivery]\nkind = "dev_mailbox"',
      'delivery.kind: "dev_mailbox" keeps messages instead of sending them and is allowed only with a loopback server.issuer (http://localhost, 127.0.0.1 or [::1]); choose smtp, direct_mx or webhook',
    ],
    [
      '[delivery]\nkind = "dev_mailbox"',
      'delivery.kind: "dev_mailbox" keeps messages instead of sending them and is allowed only with a loopback server.issuer (http://localhost, 127.0.0.1 or [::1]); choose smtp, direct_mx or webhook',
      { GATEHOUSE_ISSUER: 'https://localhost.acme.com' },
    ],
    ['[server\nlisten = 1', 'line 1, column 8: not valid TOML: Invalid TOML document: illegal character in key'],
    [
      '[providers.ethereum]\nchain_ids = [1]\n[[providers.ethereum.rpc_urls]]\nchain_id = 10\nurl = "https://rpc.acme.dev"',
      'providers.ethereum.rpc_urls[0].chain_id: must be one of providers.ethereum.chain_ids (1)',
    ],
    [
      '[[providers.ethereum.rpc_urls]]\nchain_id = 1\nurl = "ws://rpc.acme.dev"',
      'providers.ethereum.rpc_urls[0].url: must be an http:// or https:// URL',
    ],
    [
      '[providers.ethereum]\nstatement = "two\\nlines"',
      'providers.ethereum.statement: must be one line (no line breaks)',
    ],
  ];
  for (const [toml, expected, env] of invalid) {
    test(`refuses ${JSON.stringify(toml).slice(0, 70)} with "${expected}"`, () => {
      assert.deepEqual(problemsOf(toml, env), [expected]);
    });
  }

  for (const issuer of ['http://localhost:8080', 'http://127.0.0.1:8090', 'http://[::1]:8080', 'https://localhost'])
    test(`accepts the development mailbox with the loopback issuer ${issuer}, as ready delivery without a sender`, () => {
      const { config, deferred } = parse(`[server]\nissuer = "${issuer}"\n[delivery]\nkind = "dev_mailbox"`);
      assert.equal(config.delivery.kind, 'dev_mailbox');
      assert.equal(config.delivery.from, '');
      assert.deepEqual(deferred, []);
    });

  for (const relay of ['http://127.0.0.1:8788', 'http://localhost:8788', 'http://[::1]:8788', 'https://relay.acme.dev'])
    test(`accepts the Farcaster relay ${relay}: http only on loopback, like the other upstreams`, () => {
      const { config } = parse(`[providers.farcaster]\nenabled = true\nrelay_url = "${relay}"`);
      assert.equal(config.providers.farcaster.relay_url, relay);
    });

  test('accepts an empty file and fills every default', () => {
    const { config, deferred } = parse('');
    assert.equal(config.server.listen, '127.0.0.1:8080');
    assert.equal(config.gateway.upstream_host, '127.0.0.1');
    assert.equal(config.gateway.upstream_port, 18080);
    assert.equal(config.gateway.upstream_tls, false);
    assert.equal(config.tokens.authorization_code_ttl_seconds, 60);
    assert.deepEqual(deferred, []);
  });

  test('accepts every key SPEC.md lists for the gateway and route policies', () => {
    const { config } = parse(`
[gateway]
enabled = true
route_prefix = "/app"
upstream_host = "10.0.0.5"
upstream_port = 9000
upstream_tls = true
[auth]
enabled = true
provider_id = "gatehouse"
organization_id = "acme"
protected_route_prefix = "/app"
[[auth.route_policies]]
path_prefix = "/app/reports"
methods = ["GET", "POST"]
required_roles = ["analyst", "admin"]
role_match = "any"
minimum_assurance = "ial2"
required_scope = "reports:read"
required_audience = "https://api.acme.com/reports"
`);
    assert.deepEqual(
      { ...config.auth.route_policies[0] },
      {
        path_prefix: '/app/reports',
        methods: ['GET', 'POST'],
        required_roles: ['analyst', 'admin'],
        role_match: 'any',
        minimum_assurance: 'ial2',
        required_scope: 'reports:read',
        required_audience: 'https://api.acme.com/reports',
        exchange_audience: '',
      },
    );
  });

  test('accepts a route policy that forwards an exchanged token, with the client the gateway exchanges as', () => {
    const { config } = parse(`
[gateway]
token_exchange_client_id = "cli_gateway-1"
[[auth.route_policies]]
path_prefix = "/app/billing"
methods = ["GET"]
required_audience = "https://app.acme.com/"
exchange_audience = "https://billing.acme.com/"
`);
    assert.equal(config.gateway.token_exchange_client_id, 'cli_gateway-1');
    assert.equal(config.auth.route_policies[0]?.exchange_audience, 'https://billing.acme.com/');
  });

  const placeholders: [string, string, string][] = [
    ['[providers.github]\nenabled = true\nclient_id = "placeholder"', 'providers.github', 'client_id is a placeholder'],
    [
      '[providers.google]\nenabled = true\nclient_id = "abc"',
      'providers.google',
      'secret file /etc/gatehouse/secrets/provider-google.secret is missing or empty',
    ],
    ['[providers.apple]\nenabled = true\nclient_id = "0"', 'providers.apple', 'client_id is a placeholder'],
    [
      '[delivery]\nkind = "smtp"\n[delivery.smtp]\nhost = "smtp.example.com"',
      'delivery',
      'delivery.smtp.host "smtp.example.com" is a placeholder host',
    ],
    [
      '[delivery]\nkind = "smtp"\n[delivery.smtp]\nhost = "test"',
      'delivery',
      'delivery.smtp.host "test" is a placeholder host',
    ],
    [
      '[delivery]\nkind = "smtp"\nfrom = "a@acme.com"\n[delivery.smtp]\nhost = "smtp.acme.com"\nusername = "example"',
      'delivery',
      'delivery.smtp credentials are placeholders',
    ],
    [
      '[delivery]\nkind = "webhook"\n[delivery.webhook]\nurl = "placeholder"',
      'delivery',
      'delivery.webhook.url is a placeholder',
    ],
    [
      '[delivery]\nkind = "webhook"\n[delivery.webhook]\nurl = "https://hooks.acme.invalid/x"',
      'delivery',
      'delivery.webhook.url host "hooks.acme.invalid" is a placeholder host',
    ],
    [
      '[providers.ethereum]\nenabled = true\n[[providers.ethereum.rpc_urls]]\nchain_id = 1\nurl = "https://rpc.example.com"',
      'providers.ethereum.rpc_urls[0].url',
      "chain 1's JSON-RPC URL is a placeholder host",
    ],
  ];
  for (const [toml, key, reason] of placeholders) {
    test(`defers ${key} when ${reason}`, () => {
      const { deferred } = parse(toml);
      assert.deepEqual(deferred, [{ key, reason }]);
    });
  }

  for (const url of ['postgres://db.acme.internal/gatehouse', 'postgresql://gatehouse@db.acme.internal:5432/gatehouse'])
    test(`accepts database.url ${url}`, () => {
      assert.equal(parse(`[database]\nurl = "${url}"`).config.database.url, url);
    });

  test('environment overrides win over the file', () => {
    const { config } = parse('[server]\nlisten = "127.0.0.1:1"', {
      GATEHOUSE_LISTEN: '[::1]:9090',
      GATEHOUSE_ISSUER: 'https://id.acme.com',
      DATABASE_URL: 'postgresql://db.acme.internal/gatehouse',
    });
    assert.equal(config.server.listen, '[::1]:9090');
    assert.equal(config.server.issuer, 'https://id.acme.com');
    assert.equal(config.database.url, 'postgresql://db.acme.internal/gatehouse');
  });

  test('relative directories resolve against the config file', () => {
    const { config } = parse('[secrets]\ndir = "keys"\n[data]\ndir = "../lib/gatehouse"');
    assert.equal(config.secrets.dir, '/etc/gatehouse/keys');
    assert.equal(config.data.dir, '/etc/lib/gatehouse');
  });
});

describe('configuration file location', () => {
  test('--config names a missing file: refused with the path', () => {
    const dir = scratchDir();
    const file = path.join(dir, 'missing.toml');
    assert.throws(
      () => loadConfig({ configPath: file, env: {} }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.equal(error.message, `Invalid configuration in ${file}:\n  (file): file not found`);
        return true;
      },
    );
  });

  test('GATEHOUSE_CONFIG is read when --config is absent', () => {
    const dir = scratchDir();
    const file = path.join(dir, 'gatehouse.toml');
    writeFileSync(file, '[server]\nlisten = "127.0.0.1:9999"\n');
    const loaded = loadConfig({ env: { GATEHOUSE_CONFIG: file } });
    assert.equal(loaded.file, file);
    assert.equal(loaded.development, false);
    assert.equal(loaded.config.server.listen, '127.0.0.1:9999');
  });

  test('with no file anywhere, a development instance under ./.gatehouse', () => {
    const dir = scratchDir();
    const loaded = loadConfig({ env: {}, cwd: dir, configPath: undefined });
    // The default path only exists on installed hosts; this machine has none.
    assert.equal(loaded.development, true);
    assert.equal(loaded.file, null);
    assert.equal(loaded.config.server.issuer, 'http://localhost:8080');
    assert.equal(loaded.config.server.listen, '127.0.0.1:8080');
    assert.equal(loaded.config.secrets.dir, path.join(dir, '.gatehouse/secrets'));
    assert.equal(loaded.config.data.dir, path.join(dir, '.gatehouse'));
    assert.equal(loaded.config.organization.id, 'dev');
    // A test user can sign up and verify at once: self-service on, messages kept in the development mailbox.
    assert.equal(loaded.config.self_service.enabled, true);
    assert.equal(loaded.config.delivery.kind, 'dev_mailbox');
  });

  test("with the development instance's ./.gatehouse/gatehouse.toml, that file, read as the development instance", () => {
    const dir = scratchDir();
    mkdirSync(path.join(dir, '.gatehouse'));
    const file = path.join(dir, '.gatehouse/gatehouse.toml');
    writeFileSync(file, DEVELOPMENT_CONFIG.replace('listen = "127.0.0.1:8080"', 'listen = "127.0.0.1:8091"'));
    const loaded = loadConfig({ env: {}, cwd: dir });
    assert.equal(loaded.file, file);
    assert.equal(loaded.development, true);
    // Its paths resolve against the file's directory, as any file's do: the same places as before the first start.
    assert.equal(loaded.config.data.dir, path.join(dir, '.gatehouse'));
    assert.equal(loaded.config.secrets.dir, path.join(dir, '.gatehouse/secrets'));
    // The issuer follows the file's listener, and GATEHOUSE_LISTEN for one start.
    assert.equal(loaded.config.server.issuer, 'http://localhost:8091');
    const moved = loadConfig({ env: { GATEHOUSE_LISTEN: '127.0.0.1:8092' }, cwd: dir });
    assert.equal(moved.config.server.issuer, 'http://localhost:8092');
    // An issuer the file names stays.
    writeFileSync(
      file,
      `${readFileSync(file, 'utf8')}`.replace('[server]\n', '[server]\nissuer = "http://127.0.0.1:8091"\n'),
    );
    assert.equal(loadConfig({ env: {}, cwd: dir }).config.server.issuer, 'http://127.0.0.1:8091');
  });

  test('the same file named with --config elsewhere is an ordinary configuration file', () => {
    const dir = scratchDir();
    const file = path.join(dir, 'gatehouse.toml');
    writeFileSync(file, DEVELOPMENT_CONFIG);
    const loaded = loadConfig({ configPath: file, env: { GATEHOUSE_LISTEN: '127.0.0.1:8092' }, cwd: scratchDir() });
    assert.equal(loaded.development, false);
    assert.equal(loaded.config.server.issuer, 'http://localhost:8080');
  });

  test('random text never escapes as anything but a ConfigError (fuzz)', () => {
    const alphabet = '[]="\n .#abc123_-{}\'\\truefalse';
    for (let i = 0; i < 2000; i += 1) {
      let text = '';
      const length = Math.floor(Math.random() * 60);
      for (let j = 0; j < length; j += 1) text += alphabet[Math.floor(Math.random() * alphabet.length)];
      try {
        parse(text);
      } catch (error) {
        assert.ok(error instanceof ConfigError, `input ${JSON.stringify(text)} threw ${error}`);
      }
    }
  });
});
