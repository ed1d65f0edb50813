// A real OpenLDAP server (Debian's slapd) for one test file: its own temporary directory, a test CA and server
// certificate made with openssl, slapd.conf written here, entries loaded with slapadd before start, and its own two
// ports (plain LDAP for StartTLS, LDAPS).
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const SUFFIX = 'dc=example,dc=test';
export const ROOT_DN = `cn=admin,${SUFFIX}`;
export const ROOT_PASSWORD = 'root-secret';
export const SERVICE_DN = `cn=gatehouse,ou=services,${SUFFIX}`;
export const SERVICE_PASSWORD = 'service-secret';

export interface Slapd {
  ldapUrl: string;
  ldapsUrl: string;
  /** PEM of the test CA that signed the server certificate. */
  caFile: string;
  caPem: string;
  dir: string;
  stop(): Promise<void>;
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });

function makeCertificates(dir: string) {
  const run = (command: string) => execFileSync('openssl', command.split(' '), { cwd: dir, stdio: 'pipe' });
  const key = '-newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes';
  run(`req -x509 ${key} -days 2 -subj /CN=Gatehouse-test-CA -keyout ca.key -out ca.pem`);
  run(`req ${key} -subj /CN=127.0.0.1 -keyout server.key -out server.csr`);
  writeFileSync(path.join(dir, 'ext.cnf'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  run('x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 -extfile ext.cnf -out server.pem');
}

function slapdConf(dir: string) {
  return [
    ...['core', 'cosine', 'inetorgperson', 'nis'].map((s) => `include /etc/ldap/schema/${s}.schema`),
    `pidfile ${dir}/slapd.pid`,
    'modulepath /usr/lib/ldap',
    'moduleload back_mdb',
    'moduleload ppolicy',
    // Like many directories (Active Directory by default): a simple bind with a DN and no password is an
    // unauthenticated bind that succeeds (RFC 4513 §5.1.2), so tests show Gatehouse never takes it for a sign-in.
    'allow bind_anon_dn',
    `TLSCACertificateFile ${dir}/ca.pem`,
    `TLSCertificateFile ${dir}/server.pem`,
    `TLSCertificateKeyFile ${dir}/server.key`,
    // Entries are readable by the service account only; users may bind (auth), nobody else reads passwords.
    'access to attrs=userPassword by anonymous auth by * none',
    `access to * by dn.exact="${SERVICE_DN}" read by self read by * none`,
    'database mdb',
    `suffix "${SUFFIX}"`,
    `rootdn "${ROOT_DN}"`,
    `rootpw ${ROOT_PASSWORD}`,
    `directory ${dir}/db`,
    // Password policy (draft-behera-ldap-password-policy): an entry with pwdAccountLockedTime cannot bind.
    'overlay ppolicy',
    `ppolicy_default "cn=default,ou=policies,${SUFFIX}"`,
    '',
  ].join('\n');
}

/** The entries every LDAP test starts from: a service account, users and two groups. */
export function baseEntries(): string {
  const user = (uid: string, cn: string, mail: string, password: string) =>
    [
      `dn: uid=${uid},ou=people,${SUFFIX}`,
      'objectClass: inetOrgPerson',
      `uid: ${uid}`,
      `cn: ${cn}`,
      `sn: ${cn.split(' ').at(-1)}`,
      `mail: ${mail}`,
      `userPassword: ${password}`,
      '',
    ].join('\n');
  return [
    `dn: ${SUFFIX}\nobjectClass: dcObject\nobjectClass: organization\no: Example\ndc: example\n`,
    `dn: ou=people,${SUFFIX}\nobjectClass: organizationalUnit\nou: people\n`,
    `dn: ou=groups,${SUFFIX}\nobjectClass: organizationalUnit\nou: groups\n`,
    `dn: ou=services,${SUFFIX}\nobjectClass: organizationalUnit\nou: services\n`,
    `dn: ou=policies,${SUFFIX}\nobjectClass: organizationalUnit\nou: policies\n`,
    `dn: cn=default,ou=policies,${SUFFIX}\nobjectClass: pwdPolicy\nobjectClass: device\ncn: default\npwdAttribute: userPassword\npwdLockout: TRUE\n`,
    `dn: ${SERVICE_DN}\nobjectClass: organizationalRole\nobjectClass: simpleSecurityObject\ncn: gatehouse\nuserPassword: ${SERVICE_PASSWORD}\n`,
    user('alice', 'Alice Liddell', 'alice@corp.example', 'alice-password-1'),
    user('bob', 'Bob Builder', 'bob@corp.example', 'bob-password-1'),
    user('dave', 'Dave Double', 'dave@corp.example', 'dave-password-1'),
    // Locked by the directory's administrator (000001010000Z: locked until unlocked by hand).
    `${user('carol', 'Carol Locked', 'carol@corp.example', 'carol-password-1').trimEnd()}\npwdAccountLockedTime: 000001010000Z\n`,
    `dn: cn=admins,ou=groups,${SUFFIX}\nobjectClass: groupOfNames\ncn: admins\nmember: uid=alice,ou=people,${SUFFIX}\n`,
    `dn: cn=staff,ou=groups,${SUFFIX}\nobjectClass: groupOfNames\ncn: staff\nmember: uid=alice,ou=people,${SUFFIX}\nmember: uid=bob,ou=people,${SUFFIX}\n`,
  ].join('\n');
}

async function waitForPort(port: number, child: ChildProcess): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    if (child.exitCode !== null) throw new Error(`slapd exited with ${child.exitCode}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.destroy();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('slapd did not start listening');
}

export async function startSlapd(entries = baseEntries()): Promise<Slapd> {
  const dir = mkdtempSync(path.join(tmpdir(), 'gatehouse-slapd-'));
  execFileSync('mkdir', ['-p', path.join(dir, 'db')]);
  makeCertificates(dir);
  writeFileSync(path.join(dir, 'slapd.conf'), slapdConf(dir));
  writeFileSync(path.join(dir, 'entries.ldif'), entries);
  execFileSync('/usr/sbin/slapadd', ['-f', path.join(dir, 'slapd.conf'), '-l', path.join(dir, 'entries.ldif')], {
    stdio: 'pipe',
  });
  const [ldapPort, ldapsPort] = [await freePort(), await freePort()];
  const ldapUrl = `ldap://127.0.0.1:${ldapPort}`;
  const ldapsUrl = `ldaps://127.0.0.1:${ldapsPort}`;
  // -d 0: stay in the foreground (a child the test owns and stops), log nothing.
  const child = spawn(
    '/usr/sbin/slapd',
    ['-f', path.join(dir, 'slapd.conf'), '-h', `${ldapUrl}/ ${ldapsUrl}/`, '-d', '0'],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  try {
    await waitForPort(ldapPort, child);
    await waitForPort(ldapsPort, child);
  } catch (error) {
    child.kill('SIGKILL');
    throw new Error(`${(error as Error).message}: ${stderr}`);
  }
  const caFile = path.join(dir, 'ca.pem');
  return {
    ldapUrl,
    ldapsUrl,
    caFile,
    caPem: readFileSync(caFile, 'utf8'),
    dir,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
