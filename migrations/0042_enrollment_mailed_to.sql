-- The address an enrollment link was emailed to (normalized), null when the link was shown to an administrator or
-- printed. Enrolling through a mailed link proves that mailbox, so the address becomes verified (login/local/
-- enrollment.ts); a shown link proves nothing about it.
alter table enrollment_tokens add column mailed_to text;
