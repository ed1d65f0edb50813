// The owner enrollment lines of `gatehouse setup`, `owner enroll-link` and the development start. Apart from owner.ts,
// so that `serve`, which becomes a multi-worker node's supervisor, does not load the database client with them.

/** What setup and the development start print instead of a link once the owner has a password. */
export const OWNER_ENROLLED_NOTICE =
  "The initial owner is already enrolled: no new link was issued. `gatehouse owner enroll-link --reset` issues one (using it resets the owner's password and TOTP).";

/** The lines setup, the development start and this command print. */
export function enrollmentNotice(link: { url: string; expiresAt: Date }): string {
  return [
    `Owner enrollment link (one use, expires ${link.expiresAt.toISOString()}; older links no longer work):`,
    `  ${link.url}`,
  ].join('\n');
}
