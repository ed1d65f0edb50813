// Child process for crash.test.ts: queues one verification message, then starts sending it through a relay
// that never answers, and waits there until the parent kills it with SIGKILL.
import pino from 'pino';
import Value from 'typebox/value';
import { type Config, ConfigSchema } from '../../src/config/schema.ts';
import { createPool } from '../../src/db/pool.ts';
import { createOutbox } from '../../src/delivery/outbox.ts';
import { createSmtpRelayTransport } from '../../src/delivery/smtp-relay.ts';
import { createDeliveryWorker } from '../../src/delivery/worker.ts';

const env = (name: string) => process.env[name] ?? '';
const config = Value.Default(ConfigSchema, {
  organization: { id: 'acme', name: 'Acme' },
  delivery: {
    kind: 'smtp',
    from: 'no-reply@acme.dev',
    smtp: {
      host: 'localhost',
      port: Number(env('SMTP_PORT')),
      username: 'mailer',
      password_file: env('SMTP_PASSWORD_FILE'),
      ca_file: env('CA_FILE'),
    },
  },
}) as Config;
const sql = createPool(env('CHILD_DATABASE_URL'), { max: 2, connectTimeoutSeconds: 5 });
const deliveryKey = Buffer.from(env('DELIVERY_KEY'), 'base64url');

const outbox = createOutbox({ config, deliveryKey, clock: () => new Date() });
const id = await sql.begin((tx) =>
  outbox.enqueue(tx, { template: 'signup_attempt_notice', to: 'kim@mail.acme.dev', locale: 'en' }),
);
process.stdout.write(`${id}\n`);
const worker = createDeliveryWorker({
  sql,
  transport: createSmtpRelayTransport(config.delivery.smtp),
  deliveryKey,
  from: config.delivery.from,
  clock: () => new Date(),
  log: pino({ level: 'silent' }),
});
await worker.runOnce();
