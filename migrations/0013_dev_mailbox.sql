-- The development mailbox (delivery.kind = "dev_mailbox", loopback issuers only): messages the outbox would have
-- sent are kept here instead, for the console's Mailbox page. The body is sealed like an outbox body (it carries
-- verification links and codes); rows older than seven days are purged with the outbox's housekeeping.
create table dev_mailbox_messages (
  -- The outbox id: a message re-sent after a crash (at-least-once) is kept once.
  id text primary key check (id like 'msg\_%'),
  template text not null,
  recipient text not null check (length(recipient) between 3 and 254),
  sealed_body text not null,
  kept_at timestamptz not null
);
create index dev_mailbox_messages_kept on dev_mailbox_messages (kept_at desc, id desc);
