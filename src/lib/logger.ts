import pino, { type Logger } from 'pino';

/** Paths pino blanks out wherever they appear in a log line. */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-csrf-token"]',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'authorization',
  'password',
  'secret',
  'key',
  '*.password',
  '*.secret',
  '*.key',
  '*.api_key',
  '*.apiKey',
];

/** A JSON logger on stdout (fd 1), or on stderr (fd 2) for programs whose stdout is their output. */
export function createLogger(level: string, fd: 1 | 2 = 1): Logger {
  return pino(
    { level, redact: { paths: REDACT_PATHS, censor: '[redacted]' }, base: { pid: process.pid } },
    pino.destination({ fd, sync: fd === 2 }),
  );
}

export type { Logger };
