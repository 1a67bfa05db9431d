import { pathToFileURL } from 'node:url';
import { type Config, ConfigError, loadConfig } from './config.js';

/**
 * What the three entry points (the server, the worker and the operator CLI) share when they start
 * and stop as processes: the configuration read once from the environment, a start-up failure said
 * in one line, and a graceful stop on SIGTERM or SIGINT.
 */

/** The configuration from the environment; a bad one is said on stderr, and the process exits 1. */
export function configOrExit(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}

/**
 * Runs `main` when the module at `moduleUrl` is the process's entry point (not when a test imports
 * it); a failure to start is one line on stderr, `<failure>: <message>`, and exit code 1.
 */
export function runAsEntryPoint(moduleUrl: string, failure: string, main: () => Promise<void>): void {
  if (moduleUrl !== pathToFileURL(process.argv[1] ?? '').href) return;
  main().catch((error: unknown) => {
    process.stderr.write(`${failure}: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}

export interface GracefulStop {
  /** The process is ready to stop: a signal that came before now stops it at once. */
  ready(stop: (signal: string) => Promise<void>): void;
}

/**
 * Stops the process on the first SIGTERM or SIGINT by `stop` (given once the process is ready; a
 * signal during start-up stops it as soon as it is), then exits 0, or 1 when `stop` fails. Signals
 * that come while it stops are ignored: `npm start` delivers one Ctrl-C twice (the terminal's
 * SIGINT, and npm's copy of it to its child), and a second must not cut a drain short. Libraries
 * such as close-with-grace exit at once on a second signal, which is why this is our own.
 */
export function stopOnSignals(onError: (error: unknown) => void): GracefulStop {
  let stop: ((signal: string) => Promise<void>) | undefined;
  let requested: string | undefined;
  let stopping = false;
  const run = (signal: string) => {
    if (stopping || stop === undefined) return;
    stopping = true;
    stop(signal).then(
      () => process.exit(0),
      (error: unknown) => {
        onError(error);
        process.exit(1);
      },
    );
  };
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      requested ??= signal;
      run(signal);
    });
  }
  return {
    ready(fn) {
      stop = fn;
      if (requested !== undefined) run(requested);
    },
  };
}
