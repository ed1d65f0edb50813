export interface ConfigProblem {
  /** Dotted key, e.g. `server.listen` or `auth.route_policies[0].methods[1]`; an env var name when it came from one. */
  key: string;
  problem: string;
}

/** The configuration cannot be used. The message names the file, every bad key and what is wrong with it. */
export class ConfigError extends Error {
  readonly file: string;
  readonly problems: ConfigProblem[];

  constructor(file: string, problems: ConfigProblem[]) {
    super(`Invalid configuration in ${file}:\n${problems.map((p) => `  ${p.key}: ${p.problem}`).join('\n')}`);
    this.name = 'ConfigError';
    this.file = file;
    this.problems = problems;
  }
}
