// What `gatehouse doctor` and GET /admin/status report, as data: the database, verification delivery, sign-in
// providers, TLS and the OIDC signing keys. The CLI prints it as lines; the console shows it as sections.
import type { Config } from '../config/schema.ts';
import { type Migration, pendingMigrations } from '../db/migrate.ts';
import { redactDatabaseUrl, type Sql, serverVersion } from '../db/pool.ts';
import { type Check, check } from '../delivery/check.ts';
import type { DnsResolver } from '../delivery/dns-report.ts';
import { deliveryChecks, outboxCheck } from '../delivery/doctor-checks.ts';
import { type DeliveryState, deliveryStatus } from '../delivery/status.ts';
import type { Keyring } from '../oauth/keyring.ts';
import { type ProvidersSection, providerStatuses } from './providers.ts';
import { type Section, sectionOf, worst } from './section.ts';
import { type TlsSection, tlsStatus } from './tls.ts';

export interface StatusDeps {
  config: Config;
  /** Runs `work` on a database connection; rejects when the database cannot be reached. */
  withDatabase: <T>(work: (sql: Sql) => Promise<T>) => Promise<T>;
  /** The OIDC keyring over that connection, or null when the secrets could not be read. */
  keyring: ((sql: Sql) => Keyring) | null;
  migrations: Migration[];
  resolver: DnsResolver;
  /** Bound on the delivery checks (SMTP login, webhook request, DNS): they talk to other hosts and may hang. */
  checkTimeoutMs: number;
  clock: () => Date;
}

export interface DatabaseSection extends Section {
  reachable: boolean;
  /** The configured URL with its password masked, or `embedded`. */
  location: string;
  server_version: string | null;
  migrations: { known: number; pending: string[] } | null;
}

export interface DeliverySection extends Section {
  kind: Config['delivery']['kind'];
  state: DeliveryState;
  /** Why, in the operator's words (which key is missing or a placeholder). */
  reason: string;
}

export interface SigningKeyInfo {
  kid: string;
  /** Null for the initial key, which lives in the secrets directory. */
  created_at: string | null;
  retired_at: string | null;
  signing: boolean;
}

export interface SigningKeysSection extends Section {
  keys: SigningKeyInfo[];
}

export interface StatusReport {
  status: Section['status'];
  checked_at: string;
  database: DatabaseSection;
  delivery: DeliverySection;
  providers: ProvidersSection;
  tls: TlsSection;
  signing_keys: SigningKeysSection;
}

async function signingKeys(keyring: Keyring): Promise<SigningKeysSection> {
  const signing = await keyring.signingKey();
  const keys = (await keyring.verificationKeys()).map((k) => ({
    kid: k.kid,
    created_at: k.createdAt.getTime() === 0 ? null : k.createdAt.toISOString(),
    retired_at: k.retiredAt?.toISOString() ?? null,
    signing: k.kid === signing.kid,
  }));
  const retired = keys.filter((k) => k.retired_at !== null).length;
  const line = check('ok', 'keys', `${signing.kid} signs; ${retired} retired key(s) still published`);
  return { ...sectionOf([line]), keys };
}

const keysUnknown = (why: string): SigningKeysSection => ({ ...sectionOf([check('fail', 'keys', why)]), keys: [] });

interface Stored {
  database: DatabaseSection;
  outbox: Check | null;
  keys: SigningKeysSection;
}

async function fromDatabase(deps: StatusDeps): Promise<Stored> {
  const url = deps.config.database.url;
  const location = url === '' ? 'embedded' : redactDatabaseUrl(url);
  try {
    return await deps.withDatabase(async (sql) => {
      const version = await serverVersion(sql);
      const pending = (await pendingMigrations(sql, deps.migrations)).map((m) => m.file);
      const checks = [
        check('ok', 'database', `${location} is reachable`),
        pending.length === 0
          ? check('ok', 'migrations', `all ${deps.migrations.length} applied`)
          : check(
              'warn',
              'migrations',
              `${pending.length} pending (${pending.join(', ')}): \`gatehouse migrate\` or \`gatehouse serve\` applies them`,
            ),
      ];
      const keyring = deps.keyring;
      return {
        database: {
          ...sectionOf(checks),
          reachable: true,
          location,
          server_version: version,
          migrations: { known: deps.migrations.length, pending },
        },
        outbox: pending.length === 0 ? await outboxCheck(sql) : null,
        keys: keyring
          ? await signingKeys(keyring(sql)).catch((error: unknown) =>
              keysUnknown(`cannot be loaded: ${(error as Error).message}`),
            )
          : keysUnknown('unknown: the secrets directory cannot be read'),
      };
    });
  } catch (error) {
    return {
      database: {
        ...sectionOf([check('fail', 'database', `${location} is unreachable: ${(error as Error).message}`)]),
        reachable: false,
        location,
        server_version: null,
        migrations: null,
      },
      outbox: null,
      keys: keysUnknown('unknown: the database is unreachable'),
    };
  }
}

/** Resolves to `fallback()` when `work` has not settled within `ms`; the work itself runs on and is ignored. */
async function withTimeout<T>(work: Promise<T>, ms: number, fallback: () => T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(fallback()), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The delivery lines of doctor: the state, then the connection check for the configured kind. */
async function deliveryLines(deps: StatusDeps): Promise<Check[]> {
  const { config } = deps;
  const ms = deps.checkTimeoutMs;
  const limit = ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
  return withTimeout(deliveryChecks(config, { resolver: deps.resolver }), deps.checkTimeoutMs, () => [
    check('ok', 'delivery', deliveryStatus(config).reason),
    check('fail', config.delivery.kind, `no answer within ${limit}`),
  ]);
}

export async function collectStatus(deps: StatusDeps): Promise<StatusReport> {
  const { config } = deps;
  const checkedAt = deps.clock();
  // The database and the delivery checks (other hosts) are independent; neither waits for the other.
  const [stored, lines] = await Promise.all([fromDatabase(deps), deliveryLines(deps)]);
  const state = deliveryStatus(config);
  const report = {
    checked_at: checkedAt.toISOString(),
    database: stored.database,
    delivery: {
      ...sectionOf([...(stored.outbox ? [stored.outbox] : []), ...lines]),
      kind: config.delivery.kind,
      state: state.state,
      reason: state.reason,
    },
    providers: providerStatuses(config),
    tls: tlsStatus(config, checkedAt),
    signing_keys: stored.keys,
  };
  const sections = [report.database, report.delivery, report.providers, report.tls, report.signing_keys];
  return { status: worst(sections.map((s) => s.status)), ...report };
}

/** The report as `gatehouse doctor` lines, in its order: local state first, the slow network checks last. */
export function statusChecks(report: StatusReport): Check[] {
  return [
    ...report.database.checks,
    ...report.signing_keys.checks,
    ...report.tls.checks,
    ...report.providers.checks,
    ...report.delivery.checks,
  ];
}
