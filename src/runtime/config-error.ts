// The one error of a configuration that cannot be used, for the operator (flags and variables)
// and the sidecar (its pod's environment): every problem found, not just the first, so one fix
// round is enough. Problems name the flag or variable and never carry a secret value.

export class ConfigError extends Error {
  readonly problems: readonly string[];

  constructor(problems: readonly string[]) {
    super(`invalid configuration: ${problems.join('; ')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}
