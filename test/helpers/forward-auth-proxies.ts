// Debian's nginx and HAProxy started with the forward-auth configuration docs/gateway.md gives ("Forward auth"),
// read from the document itself so the copy-paste text cannot drift from what is tested: only the addresses and
// file paths are changed. Each proxy runs in the foreground with its own files in a scratch directory.
import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, untilAccepting } from './haproxy.ts';

export const NGINX = '/usr/sbin/nginx';
export const HAPROXY = '/usr/sbin/haproxy';

const GATEWAY_DOC = fileURLToPath(new URL('../../docs/gateway.md', import.meta.url));

/** The fenced block of docs/gateway.md whose first line is `marker` (e.g. `# forward-auth: nginx`). */
export function documentedBlock(marker: string, doc = readFileSync(GATEWAY_DOC, 'utf8')): string {
  const blocks = doc.split('\n```').filter((_, i) => i % 2 === 1);
  const found = blocks.map((b) => b.slice(b.indexOf('\n') + 1)).find((body) => body.startsWith(`${marker}\n`));
  if (found === undefined) throw new Error(`docs/gateway.md has no code block starting with "${marker}"`);
  return `${found}\n`;
}

/** Replaces each documented value with the test's; a value the document no longer has is an error. */
function substitute(text: string, replacements: [string, string][]): string {
  let out = text;
  for (const [from, to] of replacements) {
    if (!out.includes(from)) throw new Error(`the documented configuration no longer contains "${from}"`);
    out = out.replaceAll(from, to);
  }
  return out;
}

export interface RunningProxy {
  url: string;
  /** The proxy's main process (nginx's master; its worker is a child), for CPU accounting in the bench. */
  pid: number;
  stop(): Promise<void>;
}

async function run(command: string, args: string[], port: number, log: string[]): Promise<RunningProxy> {
  const child: ChildProcess = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.on('data', (chunk: Buffer) => log.push(chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => log.push(chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await Promise.race([
      untilAccepting(port),
      exited.then(() => {
        throw new Error(`${command} exited: ${log.join('')}`);
      }),
    ]);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid as number,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
    },
  };
}

export interface ProxyTargets {
  /** Gatehouse, host:port. */
  gatehouse: string;
  /** The product upstream, host:port. */
  upstream: string;
  dir: string;
}

/** nginx with the documented server block inside a minimal nginx.conf of the test's own. */
export async function startNginx(targets: ProxyTargets, log: string[] = []): Promise<RunningProxy> {
  const port = await freePort();
  const cache = path.join(targets.dir, 'nginx-cache');
  mkdirSync(cache, { recursive: true });
  // Workers run as nobody when nginx starts as root; they reach and write the cache.
  chmodSync(targets.dir, 0o755);
  chmodSync(cache, 0o777);
  const documented = substitute(documentedBlock('# forward-auth: nginx'), [
    ['127.0.0.1:8080', targets.gatehouse],
    ['127.0.0.1:18080', targets.upstream],
    ['listen 80;', `listen 127.0.0.1:${port};`],
    ['/var/cache/nginx/gatehouse', cache],
  ]);
  return startNginxWith(targets.dir, port, documented, { log });
}

/**
 * nginx (one worker, in the foreground) with `httpBlock` inside a minimal nginx.conf whose files all live in `dir`;
 * `lua` loads Debian's Lua module (libnginx-mod-http-lua) first.
 */
export async function startNginxWith(
  dir: string,
  port: number,
  httpBlock: string,
  options: { lua?: boolean; log?: string[] } = {},
): Promise<RunningProxy> {
  const file = path.join(dir, 'nginx.conf');
  const temp = (name: string) => path.join(dir, `nginx-${name}`);
  const modules = options.lua
    ? 'load_module /usr/lib/nginx/modules/ndk_http_module.so;\nload_module /usr/lib/nginx/modules/ngx_http_lua_module.so;\n'
    : '';
  writeFileSync(
    file,
    `${modules}daemon off;
worker_processes 1;
pid ${temp('pid')};
error_log stderr warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${temp('body')};
  proxy_temp_path ${temp('proxy')};
  fastcgi_temp_path ${temp('fastcgi')};
  uwsgi_temp_path ${temp('uwsgi')};
  scgi_temp_path ${temp('scgi')};
${httpBlock}
}
`,
  );
  return run(NGINX, ['-e', 'stderr', '-c', file], port, options.log ?? []);
}

/** HAProxy with the documented haproxy.cfg and Lua action. */
export async function startForwardAuthHaproxy(targets: ProxyTargets, log: string[] = []): Promise<RunningProxy> {
  const port = await freePort();
  const lua = path.join(targets.dir, 'gatehouse.lua');
  writeFileSync(
    lua,
    substitute(documentedBlock('-- forward-auth: haproxy lua'), [['127.0.0.1:8080', targets.gatehouse]]),
  );
  const file = path.join(targets.dir, 'haproxy.cfg');
  writeFileSync(
    file,
    substitute(documentedBlock('# forward-auth: haproxy'), [
      ['/etc/haproxy/gatehouse.lua', lua],
      ['bind :80', `bind 127.0.0.1:${port}`],
      ['127.0.0.1:18080', targets.upstream],
    ]),
  );
  return run(HAPROXY, ['-db', '-f', file], port, log);
}
