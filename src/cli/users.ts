// `gatehouse users list|invite|suspend|sign-out`: see src/operations/users.ts. commands.ts declares each subcommand's
// options and operands; each handler is one call.
import { inviteUser, listUsers, signOutUser, suspendUser } from '../operations/users.ts';
import { type CommandInput, type OptionValues, UsageError } from './args.ts';
import { connectionOf, withOperator } from './operator-session.ts';
import type { USERS_INVITE_OPTIONS, USERS_LIST_OPTIONS, USERS_TARGET_OPTIONS } from './options.ts';

const out = (text: string) => process.stdout.write(`${text}\n`);

export async function usersList({ values }: CommandInput<OptionValues<typeof USERS_LIST_OPTIONS>>): Promise<number> {
  const limit = Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1) throw new UsageError('--limit must be a whole number above 0');
  const users = await withOperator(connectionOf(values), (deps) => listUsers(deps, { search: values.search, limit }));
  if (values.json) out(JSON.stringify(users, null, 2));
  // An invitee's account is active but nobody can sign in to it yet: the state column says invited until then.
  else
    for (const u of users)
      out([u.sub, u.invited ? 'invited' : u.state, u.ial, u.email ?? '-', u.display_name].join('\t'));
  return 0;
}

export async function usersInvite({
  values,
  positionals: [email = ''],
}: CommandInput<OptionValues<typeof USERS_INVITE_OPTIONS>>): Promise<number> {
  const invited = await withOperator(connectionOf(values), (deps, actor) =>
    inviteUser(deps, actor, {
      email,
      roles: values.role ?? ['member'],
      ...(values.name !== undefined ? { display_name: values.name } : {}),
    }),
  );
  if (values.json) out(JSON.stringify(invited, null, 2));
  else {
    out(`Invited ${invited.email} as ${invited.sub} (roles: ${invited.roles.join(', ')})`);
    out(whereTheLinkWent(invited.enrollment));
  }
  return 0;
}

/** Where the link really went: a mail on its way, the development mailbox (nothing sent), or only this terminal. */
function whereTheLinkWent(enrollment: { delivery: string; expires_at: string; url?: string }): string {
  const expires = `it works once and expires ${enrollment.expires_at}`;
  if (enrollment.delivery === 'email') return `The enrollment link is on its way to them by email; ${expires}.`;
  if (enrollment.delivery === 'dev_mailbox')
    return `The enrollment link is in the development mailbox (nothing was sent): find it on the console's Mailbox page or in the server's terminal; ${expires}.`;
  return `Enrollment link (shown only now, as message delivery is not configured; pass it on privately; ${expires}):\n  ${enrollment.url}`;
}

type TargetInput = CommandInput<OptionValues<typeof USERS_TARGET_OPTIONS>>;

export async function usersSuspend({ values, positionals: [user = ''] }: TargetInput): Promise<number> {
  const r = await withOperator(connectionOf(values), (deps, actor) => suspendUser(deps, actor, user));
  out(`Suspended ${r.sub}: ${r.sessions_revoked} sessions and ${r.grants_revoked} OAuth grants ended`);
  return 0;
}

export async function usersSignOut({ values, positionals: [user = ''] }: TargetInput): Promise<number> {
  const r = await withOperator(connectionOf(values), (deps, actor) => signOutUser(deps, actor, user));
  out(`Signed out ${user}: ${r.revoked} sessions and ${r.grants_revoked} OAuth grants ended`);
  return 0;
}
