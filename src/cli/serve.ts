import { loadConfig } from '../config/load.ts';
import { startServer } from '../server.ts';
import { type Command, parseFlags } from './args.ts';
import { enrollmentNotice, OWNER_ENROLLED_NOTICE } from './owner.ts';

export const serveCommand: Command = {
  summary: 'Run the service (no config file: a development instance under ./.gatehouse).',
  async run(args) {
    const { values } = parseFlags(args, { config: { type: 'string' } });
    const loaded = loadConfig({ configPath: values.config });
    const { config } = loaded;
    const server = await startServer(loaded);
    // The handlers are in place before "listening" is announced: a signal sent as soon as that line is read would
    // otherwise find none and kill the process. They stay: a second signal must not kill the process halfway
    // through its graceful stop (Ctrl-C in a terminal reaches this process and also the launcher or npm above it,
    // which pass it on once more).
    const stopped = new Promise<void>((resolve) => {
      let stopping = false;
      const shutdown = () => {
        if (stopping) return;
        stopping = true;
        server.stop().then(resolve, resolve);
      };
      process.on('SIGTERM', shutdown);
      process.on('SIGINT', shutdown);
    });
    const notes = [
      `Gatehouse is listening on ${server.url}`,
      `  issuer:  ${config.server.issuer}`,
      `  console: ${config.server.issuer}/admin/console`,
    ];
    if (loaded.development) notes.push('  development instance: no config file, state under ./.gatehouse');
    if (server.enrollmentLink) notes.push(enrollmentNotice(server.enrollmentLink));
    if (server.ownerEnrolled) notes.push(`  ${OWNER_ENROLLED_NOTICE}`);
    if (config.database.url === '')
      notes.push('  WARNING: the embedded PostgreSQL is for evaluation only; set DATABASE_URL for real use.');
    for (const item of loaded.deferred) notes.push(`  deferred: ${item.key} (${item.reason})`);
    process.stderr.write(`${notes.join('\n')}\n`);

    await stopped;
    return 0;
  },
};
