// Debian's Apache with mod_auth_openidc (apt-get install apache2 libapache2-mod-auth-openidc) in front of a static
// page, configured by test/integrations/snippets/mod-auth-openidc.conf, the file docs/integrations.md quotes, included
// as it is after `Define`s of its variables. Only what a test needs to look in is added after it. Each instance has a ServerRoot, config, pid file,
// runtime directory and logs of its own in a scratch directory and a free loopback port; the system's apache2
// service is never touched. The page shows, through server-side includes, what the module hands the application:
// the claims as environment variables (OIDC_CLAIM_*) and as the request headers a proxied application would get.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after } from 'node:test';
import { scratchDir } from './config.ts';
import { freePort, untilAccepting } from './haproxy.ts';

export const APACHE = '/usr/sbin/apache2';
const MODULES = '/usr/lib/apache2/modules';
/** The configuration docs/integrations.md "Apache mod_auth_openidc" quotes. */
export const SNIPPET = new URL('../integrations/snippets/mod-auth-openidc.conf', import.meta.url).pathname;

export interface ModAuthOpenidcOptions {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /**
   * Overrides the snippet's OIDCRefreshAccessTokenBeforeExpiry (60) for /protected: 599 of the access token's 600
   * seconds makes the module refresh once the token is a second old.
   */
  refreshBeforeExpiry?: number;
}

/** Where the module listens; pick the port before registering the client, whose URIs name it. */
export async function modAuthOpenidcOrigin() {
  return `http://127.0.0.1:${await freePort()}`;
}

export const redirectUriOf = (origin: string) => `${origin}/protected/redirect_uri`;

const PAGE = `<!doctype html>
<html><head><link rel="icon" href="data:,"><title>Protected page</title></head><body>
<h1>Hello, <!--#echo var="OIDC_CLAIM_name" --></h1>
<p id="user"><!--#echo var="REMOTE_USER" --></p>
<p id="email"><!--#echo var="OIDC_CLAIM_email" --></p>
<p id="header-sub"><!--#echo var="CLAIM_HEADER_SUB" --></p>
<p id="expires"><!--#echo var="OIDC_access_token_expires" --></p>
<p id="access-token"><!--#echo var="OIDC_access_token" --></p>
<p id="refresh-token"><!--#echo var="OIDC_refresh_token" --></p>
</body></html>
`;

function requireApache() {
  if (!existsSync(APACHE) || !existsSync(path.join(MODULES, 'mod_auth_openidc.so')))
    throw new Error('Apache with mod_auth_openidc is missing: apt-get install apache2 libapache2-mod-auth-openidc');
}

export async function startModAuthOpenidc(origin: string, o: ModAuthOpenidcOptions) {
  requireApache();
  const root = scratchDir('gatehouse-apache-');
  const docs = path.join(root, 'htdocs');
  mkdirSync(path.join(docs, 'protected'), { recursive: true });
  mkdirSync(path.join(root, 'run'));
  writeFileSync(path.join(docs, 'protected', 'index.shtml'), PAGE);
  writeFileSync(
    path.join(docs, 'signed-out.html'),
    '<!doctype html><link rel="icon" href="data:,"><title>Signed out</title><h1>Signed out</h1>\n',
  );
  // The server starts as root and serves as www-data, which must read the pages.
  for (const dir of [root, docs, path.join(docs, 'protected')]) chmodSync(dir, 0o755);
  const port = new URL(origin).port;
  const load = (name: string, file: string) => `LoadModule ${name}_module ${MODULES}/mod_${file}.so`;
  const config = [
    `ServerRoot ${root}`,
    `PidFile ${root}/run/apache2.pid`,
    `DefaultRuntimeDir ${root}/run`,
    `Mutex file:${root}/run default`,
    `ErrorLog ${root}/error.log`,
    'LogLevel warn auth_openidc:info',
    `Listen 127.0.0.1:${port}`,
    `ServerName 127.0.0.1:${port}`,
    'User www-data',
    'Group www-data',
    load('mpm_event', 'mpm_event'),
    load('authn_core', 'authn_core'),
    load('authz_core', 'authz_core'),
    load('authz_user', 'authz_user'),
    load('mime', 'mime'),
    load('dir', 'dir'),
    load('include', 'include'),
    load('rewrite', 'rewrite'),
    load('auth_openidc', 'auth_openidc'),
    'TypesConfig /etc/mime.types',
    `DocumentRoot ${docs}`,
    'DirectoryIndex index.shtml',
    'AddType text/html .shtml',
    'AddOutputFilter INCLUDES .shtml',
    `<Directory ${docs}>`,
    '  Options +Includes',
    '  Require all granted',
    '</Directory>',
    // The documented configuration, its variables defined as an operator would.
    `Define GATEHOUSE_ISSUER ${o.issuer}`,
    `Define GATEHOUSE_CLIENT_ID ${o.clientId}`,
    `Define GATEHOUSE_CLIENT_SECRET ${o.clientSecret}`,
    `Define APP_ORIGIN ${origin}`,
    `Define OIDC_CRYPTO_PASSPHRASE ${randomBytes(24).toString('hex')}`,
    `Include ${SNIPPET}`,
    // What only the tests add. Plain http on loopback: without Secure, Chromium drops the module's default
    // SameSite=None cookies; Lax is what it sets when On.
    'OIDCCookieSameSite On',
    '<Location /protected>',
    ...(o.refreshBeforeExpiry ? [`  OIDCRefreshAccessTokenBeforeExpiry ${o.refreshBeforeExpiry} logout_on_error`] : []),
    // The page shows the refresh token too, so the test can show the one a refresh replaced is refused.
    '  OIDCPassRefreshToken On',
    // What a proxied application receives is the request header OIDC_CLAIM_sub; CGI and SSI variables leave out header
    // names with an underscore, so mod_rewrite (which runs after the module set it) copies it for the page.
    '  RewriteEngine On',
    '  RewriteCond %{HTTP:OIDC_CLAIM_sub} (.+)',
    '  RewriteRule ^ - [E=CLAIM_HEADER_SUB:%1]',
    '</Location>',
    '',
  ].join('\n');
  const file = path.join(root, 'apache2.conf');
  writeFileSync(file, config);
  const child: ChildProcess = spawn(APACHE, ['-f', file, '-DFOREGROUND'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk) => {
    stderr += String(chunk);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  after(async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
  });
  const log = () =>
    existsSync(path.join(root, 'error.log')) ? readFileSync(path.join(root, 'error.log'), 'utf8') : '';
  await Promise.race([
    untilAccepting(Number(port)),
    exited.then(() => {
      throw new Error(`apache2 exited (${child.exitCode}): ${stderr}${log()}`);
    }),
  ]);
  return { origin, page: `${origin}/protected/`, log };
}
