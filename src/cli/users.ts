// `gatehouse users list|invite|suspend|sign-out`: see src/operations/users.ts. Each subcommand's arguments are parsed
// in one function returning plain options; the work is one call.
import { inviteUser, listUsers, signOutUser, suspendUser } from '../operations/users.ts';
import { type Command, parseFlags, UsageError } from './args.ts';
import { CONNECTION_FLAGS, type ConnectionArgs, withOperator } from './operator-session.ts';

const USAGE = `Usage:
  gatehouse users list [--search TEXT] [--limit N] [--json]
  gatehouse users invite <email> [--name NAME] [--role ROLE]... [--json]
  gatehouse users suspend <sub|email>
  gatehouse users sign-out <sub|email>
(each also takes --config FILE and --database-url URL)`;

export type UsersArgs = ConnectionArgs &
  (
    | { action: 'list'; search: string | undefined; limit: number; json: boolean }
    | { action: 'invite'; email: string; name: string | undefined; roles: string[]; json: boolean }
    | { action: 'suspend' | 'sign-out'; user: string }
  );

export function parseUsersArgs(args: string[]): UsersArgs {
  const { values, positionals } = parseFlags(args, {
    ...CONNECTION_FLAGS,
    search: { type: 'string' },
    limit: { type: 'string', default: '100' },
    json: { type: 'boolean', default: false },
    name: { type: 'string' },
    role: { type: 'string', multiple: true },
  });
  const connection = { configPath: values.config, databaseUrl: values['database-url'] };
  const [action, target, ...rest] = positionals;
  if (rest.length > 0) throw new UsageError(USAGE);
  if (action === 'list' && !target) {
    const limit = Number(values.limit);
    if (!Number.isInteger(limit) || limit < 1) throw new UsageError('--limit must be a whole number above 0');
    return { ...connection, action, search: values.search, limit, json: values.json === true };
  }
  if (action === 'invite' && target)
    return {
      ...connection,
      action,
      email: target,
      name: values.name,
      roles: values.role ?? ['member'],
      json: values.json === true,
    };
  if ((action === 'suspend' || action === 'sign-out') && target) return { ...connection, action, user: target };
  throw new UsageError(USAGE);
}

const out = (text: string) => process.stdout.write(`${text}\n`);

export async function runUsers(options: UsersArgs): Promise<number> {
  return withOperator(options, async (deps, actor) => {
    switch (options.action) {
      case 'list': {
        const users = await listUsers(deps, { search: options.search, limit: options.limit });
        if (options.json) out(JSON.stringify(users, null, 2));
        else for (const u of users) out([u.sub, u.state, u.ial, u.email ?? '-', u.display_name].join('\t'));
        return 0;
      }
      case 'invite': {
        const invited = await inviteUser(deps, actor, {
          email: options.email,
          roles: options.roles,
          ...(options.name !== undefined ? { display_name: options.name } : {}),
        });
        if (options.json) out(JSON.stringify(invited, null, 2));
        else {
          out(`Invited ${invited.email} as ${invited.sub} (roles: ${invited.roles.join(', ')})`);
          out(
            invited.enrollment.delivery === 'email'
              ? `The enrollment link was emailed; it expires ${invited.enrollment.expires_at}.`
              : `Enrollment link (shown once; email delivery is not configured; expires ${invited.enrollment.expires_at}):\n  ${invited.enrollment.url}`,
          );
        }
        return 0;
      }
      case 'suspend': {
        const r = await suspendUser(deps, actor, options.user);
        out(`Suspended ${r.sub}: ${r.sessions_revoked} sessions and ${r.grants_revoked} OAuth grants ended`);
        return 0;
      }
      case 'sign-out': {
        const r = await signOutUser(deps, actor, options.user);
        out(`Signed out ${options.user}: ${r.revoked} sessions and ${r.grants_revoked} OAuth grants ended`);
        return 0;
      }
    }
  });
}

export const usersCommand: Command = {
  summary: "users list|invite|suspend|sign-out: the admin API's people operations from the shell (audited).",
  run: async (args) => runUsers(parseUsersArgs(args)),
};
