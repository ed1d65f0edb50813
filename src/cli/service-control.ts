// `gatehouse start|stop|restart`: systemctl on gatehouse.service, then (start, restart) wait until the listener
// answers /health/ready, so the command says whether the service came back, not only that systemd accepted it.
import { type CommandInput, UsageError } from './args.ts';
import { loadCommandConfig } from './development-instance.ts';
import { controlService, healthUrl, serviceState, UNIT, waitUntilHealthy } from './service.ts';
import { paint, progress } from './style.ts';

type Values = { config?: string; timeout?: string };

/** Seconds from --timeout (default 60). */
export function timeoutMs(value: string | undefined): number {
  const seconds = value === undefined ? 60 : Number(value);
  if (!Number.isInteger(seconds) || seconds < 1) throw new UsageError('--timeout must be a whole number of seconds');
  return seconds * 1000;
}

async function startOrRestart(action: 'start' | 'restart', values: Values): Promise<number> {
  const wait = timeoutMs(values.timeout);
  const steps = progress(process.stderr);
  const color = paint(process.stdout);
  steps.step(`systemctl ${action} ${UNIT}`);
  await controlService(action);
  // After systemd acted: without it there is nothing to probe, and no development defaults are created here.
  const { config } = loadCommandConfig({ configPath: values.config });
  const url = healthUrl(config);
  const health = await waitUntilHealthy(url, wait, (h) => steps.step(`waiting for ${url}: ${h.detail}`));
  steps.done();
  if (health.ready) {
    process.stdout.write(
      `${action === 'start' ? 'Started' : 'Restarted'} ${UNIT}: ${color.green('ready')} at ${url}\n`,
    );
    return 0;
  }
  const state = await serviceState();
  process.stdout.write(
    `${action === 'start' ? 'Started' : 'Restarted'} ${UNIT}, but it is ${color.red(health.detail)} after ${wait / 1000} s (systemd: ${state?.active ?? 'unknown'}); see \`gatehouse logs\`\n`,
  );
  return 1;
}

export const start = ({ values }: CommandInput<Values>) => startOrRestart('start', values);
export const restart = ({ values }: CommandInput<Values>) => startOrRestart('restart', values);

export async function stop(_: CommandInput<Values>): Promise<number> {
  await controlService('stop');
  process.stdout.write(`Stopped ${UNIT}.\n`);
  return 0;
}
