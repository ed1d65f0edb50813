// One configured LDAP directory (`[ldap.<id>]`) and the two things sign-in asks of it, through ldapts:
// find the user's entry with the service account, then bind as that entry with the password typed (RFC 4513 §5.1.3).
// Every connection is TLS (ldaps:// or StartTLS, RFC 4513 §3) unless plain LDAP on loopback was allowed explicitly.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { ConnectionOptions } from 'node:tls';
import type { Client } from 'ldapts';
import type { Config } from '../../config/schema.ts';
import { readConfiguredSecret } from '../../crypto/secret-files.ts';
import { fillFilter } from './filter.ts';
import { directoryTransport } from './transport.ts';

export type DirectoryConfig = Config['ldap'][string];

export interface Directory {
  id: string;
  config: DirectoryConfig;
  bindPassword: string;
  /** Undefined: the system CAs. */
  ca: string | undefined;
}

/** What the directory says about a user whose password it accepted. */
export interface DirectoryUser {
  dn: string;
  /** The value of id_attribute: the stable key of the link, never the email or the DN. */
  stableId: string;
  displayName: string;
  email: string | null;
  /** DNs of the groups found by the group search, lower-cased. */
  groups: string[];
}

/** The directory could not be asked (down, TLS refused, service account refused): not the user's fault. */
export class DirectoryUnavailable extends Error {
  override name = 'DirectoryUnavailable';
}

export const directorySecretFile = (id: string) => `ldap-${id}.secret`;

/** Reads every directory's service password (ldap-<id>.secret, mode 0600) and CA bundle (an absolute path by now) once, at startup. */
export function loadDirectories(config: Config): Directory[] {
  return Object.entries(config.ldap).map(([id, directory]) => ({
    id,
    config: directory,
    bindPassword: readConfiguredSecret(
      path.join(config.secrets.dir, directorySecretFile(id)),
      `LDAP directory ${id} needs its service account password in ${directorySecretFile(id)} in secrets.dir`,
    ).trim(),
    ca: directory.ca_file ? readFileSync(directory.ca_file, 'utf8') : undefined,
  }));
}

/** The directory serving a sign-in subject's email domain, if any. */
export function directoryForSubject(directories: Directory[], subject: string): Directory | null {
  const domain = subject.slice(subject.lastIndexOf('@') + 1).toLowerCase();
  if (!subject.includes('@') || !domain) return null;
  return directories.find((d) => d.config.email_domains.includes(domain)) ?? null;
}

// ldapts (about 10 MB resident) loads with the first directory connection, not with every server that has none
// (docs/decisions.md "Idle RSS: sign-in libraries load on first use").
const ldapts = () => import('ldapts');

/** A connected client, TLS established unless plain LDAP on loopback was allowed, not yet bound. */
async function openClient(directory: Directory): Promise<Client> {
  const { config } = directory;
  const { Client: LdapClient } = await ldapts();
  const timeout = config.timeout_seconds * 1000;
  // Node checks the certificate against the URL's host (an IP address against an IP SAN), RFC 6125.
  const tls: ConnectionOptions = { ...(directory.ca ? { ca: [directory.ca] } : {}), minVersion: 'TLSv1.2' };
  const transport = directoryTransport(config);
  // ldapts speaks TLS from the first byte to any URL given tlsOptions, so they go only with ldaps://; StartTLS takes
  // them after connecting, and plain LDAP on loopback gets none.
  const client = new LdapClient({
    url: config.url,
    timeout,
    connectTimeout: timeout,
    ...(transport === 'ldaps' ? { tlsOptions: tls } : {}),
  });
  if (transport === 'start_tls') await client.startTLS(tls);
  return client;
}

/** A connected client, TLS established, bound as the service account. */
async function serviceClient(directory: Directory): Promise<Client> {
  let client: Client | null = null;
  try {
    client = await openClient(directory);
    await client.bind(directory.config.bind_dn, directory.bindPassword);
    return client;
  } catch (error) {
    await client?.unbind().catch(() => undefined);
    const { InvalidCredentialsError } = await ldapts();
    const reason =
      error instanceof InvalidCredentialsError ? 'the service account (bind_dn) was refused' : (error as Error).message;
    throw new DirectoryUnavailable(`LDAP directory ${directory.id}: ${reason}`, { cause: error });
  }
}

const first = (value: unknown): string | null => {
  const one = Array.isArray(value) ? value[0] : value;
  if (Buffer.isBuffer(one)) return one.toString('hex');
  return typeof one === 'string' && one !== '' ? one : null;
};

/**
 * Checks a subject and password against the directory. Null when the password is wrong, the subject has no entry,
 * more than one, or no stable id: one answer, so a caller cannot tell these apart. An empty password never reaches
 * the directory: a simple bind without one is an unauthenticated bind that succeeds (RFC 4513 §5.1.2).
 */
export async function authenticate(
  directory: Directory,
  subject: string,
  password: string,
): Promise<DirectoryUser | null> {
  if (password === '') return null;
  const { config } = directory;
  const client = await serviceClient(directory);
  try {
    const attributes = [config.id_attribute, config.display_name_attribute, config.email_attribute];
    const { searchEntries } = await client
      .search(config.user_search_base, {
        scope: 'sub',
        filter: fillFilter(config.user_filter, { subject }),
        attributes,
        sizeLimit: 2,
        ...(config.id_attribute === 'objectGUID' ? { explicitBufferAttributes: ['objectGUID'] } : {}),
      })
      .catch((error: unknown) => {
        // Two matches exceed sizeLimit: ambiguous, refused like a missing entry.
        if ((error as Error).name === 'SizeLimitExceededError') return { searchEntries: [{ dn: '' }, { dn: '' }] };
        throw new DirectoryUnavailable(`LDAP directory ${directory.id}: search failed`, { cause: error });
      });
    const entry: Record<string, unknown> | undefined = searchEntries.length === 1 ? searchEntries[0] : undefined;
    const stableId = entry ? first(entry[config.id_attribute]) : null;
    if (!entry || !stableId) return null;
    const dn = String(entry.dn);
    if (!(await bindsAs(directory, dn, password))) return null;
    const groups = config.group_search_base
      ? (
          await client.search(config.group_search_base, {
            scope: 'sub',
            filter: fillFilter(config.group_filter, { dn }),
            attributes: ['dn'],
          })
        ).searchEntries.map((g) => String(g.dn).toLowerCase())
      : [];
    return {
      dn,
      stableId,
      displayName: first(entry[config.display_name_attribute]) ?? subject,
      email: first(entry[config.email_attribute]),
      groups,
    };
  } catch (error) {
    if (error instanceof DirectoryUnavailable) throw error;
    throw new DirectoryUnavailable(`LDAP directory ${directory.id}: ${(error as Error).message}`, { cause: error });
  } finally {
    await client.unbind().catch(() => undefined);
  }
}

/** The user's own bind, on its own connection so the service connection keeps its identity for the group search. */
async function bindsAs(directory: Directory, dn: string, password: string): Promise<boolean> {
  const client = await openClient(directory);
  try {
    await client.bind(dn, password);
    return true;
  } catch (error) {
    // A locked account (ppolicy, AD) answers invalidCredentials or unwillingToPerform (53): both read as "wrong".
    const { InvalidCredentialsError } = await ldapts();
    if (error instanceof InvalidCredentialsError || (error as { code?: number }).code === 53) return false;
    throw error;
  } finally {
    await client.unbind().catch(() => undefined);
  }
}

/** For `gatehouse doctor`: connect, TLS, service bind and one search of the user base. */
export async function probeDirectory(directory: Directory): Promise<void> {
  const client = await serviceClient(directory);
  try {
    await client.search(directory.config.user_search_base, {
      scope: 'base',
      filter: '(objectClass=*)',
      attributes: ['dn'],
    });
  } catch (error) {
    throw new DirectoryUnavailable(`LDAP directory ${directory.id}: search of user_search_base failed`, {
      cause: error,
    });
  } finally {
    await client.unbind().catch(() => undefined);
  }
}
