import path from 'node:path';
import ipaddr from 'ipaddr.js';

/**
 * The one place that reads process.env. Every variable is validated once at start; a bad value
 * throws a ConfigError naming the variable, and the entry point turns it into a clean exit.
 */

export type AiProvider = 'builtin' | 'openai';

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  readonly databaseUrl: string | undefined;
  readonly databaseSchema: string | undefined;
  /** How long a statement waits for a lock (`DATABASE_LOCK_TIMEOUT_MS`, default 5000; SQLite too). */
  readonly databaseLockTimeoutMs: number;
  /** How long one PostgreSQL statement may run (`DATABASE_STATEMENT_TIMEOUT_MS`, default 30000). */
  readonly databaseStatementTimeoutMs: number;
  /** PostgreSQL pool connections one tenant may hold or wait for (`DATABASE_TENANT_CONNECTIONS`; half the pool). */
  readonly databaseTenantConnections: number | undefined;
  /** PostgreSQL statements prepared once per connection (`DATABASE_PREPARED_STATEMENTS`, default on). */
  readonly databasePreparedStatements: boolean;
  readonly redisUrl: string | undefined;
  /** Prefix of every Redis key (`REDIS_KEY_PREFIX`, default `cp:`), for deployments sharing one Redis. */
  readonly redisKeyPrefix: string;
  readonly tls: { readonly enabled: boolean; readonly certFile?: string; readonly keyFile?: string };
  readonly logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  readonly demoData: boolean;
  readonly ai: {
    readonly provider: AiProvider;
    readonly baseUrl: string | undefined;
    readonly apiKey: string | undefined;
    readonly model: string | undefined;
    readonly timeoutMs: number;
  };
  readonly webhooks: {
    readonly allowInsecure: boolean;
    readonly timeoutMs: number;
    readonly retryScheduleSeconds: readonly number[];
    readonly workerInProcess: boolean;
  };
  /** Days events and the webhook delivery log are kept (`EVENT_RETENTION_DAYS`, default 30). */
  readonly eventRetentionDays: number;
  /** Days the request log keeps a request (`REQUEST_LOG_DAYS`, default 30). */
  readonly requestLogDays: number;
  readonly shutdownTimeoutMs: number;
  /** Client connections and how long a request may take to arrive (src/http/connections.ts). */
  readonly connections: {
    /** Connections served at once (`MAX_CONNECTIONS`), lowered to fit the open-file limit. */
    readonly max: number;
    /** A request's headers, and a TLS handshake, must arrive within this (`HEADERS_TIMEOUT_MS`). */
    readonly headersTimeoutMs: number;
    /** A whole request, its body included, must arrive within this (`REQUEST_TIMEOUT_MS`). */
    readonly requestTimeoutMs: number;
    /**
     * After refusing a body it has not read, the server reads and drops what the client still
     * sends for at most this long (`LINGER_TIMEOUT_MS`) and this many bytes (`LINGER_MAX_BYTES`),
     * then closes: the client reads its answer instead of a reset.
     */
    readonly lingerTimeoutMs: number;
    readonly lingerMaxBytes: number;
  };
  /**
   * Which peers are proxies whose `X-Forwarded-For` names the client (`TRUST_PROXY`): none (false),
   * or their addresses and CIDR ranges (or `loopback`, `linklocal`, `uniquelocal`). The per-address
   * throttles (unknown keys, console sign-in) count clients by the address so found.
   */
  readonly trustProxy: false | readonly string[];
  /** scrypt cost for new password hashes, as log2(N). */
  readonly passwordScryptLog2N: number;
  /**
   * How long a cart's completion in flight keeps its lease before another process may finish it
   * (`CHECKOUT_LEASE_MS`, default 120000; src/modules/carts/carts.checkout.ts).
   */
  readonly checkoutLeaseMs: number;
  /** The `sandbox` payment provider, for rehearsals (src/modules/orders/payments.provider.ts). */
  readonly paymentSandbox: {
    /** It answers a charge this late (`PAYMENT_SANDBOX_DELAY_MS`, default 0): a slow provider. */
    readonly delayMs: number;
    /** It appends each charge it makes to this file, as a provider's own record (`PAYMENT_SANDBOX_JOURNAL`). */
    readonly journal: string | undefined;
  };
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`Invalid configuration: ${variable} ${message}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export const DEFAULT_RETRY_SCHEDULE = [5, 300, 1800, 7200, 18000, 36000, 36000] as const;

function str(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = str(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max)
    throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`);
  return value;
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = str(env, name);
  if (raw === undefined) return fallback;
  const lowered = raw.toLowerCase();
  if (['1', 'true', 'on', 'yes'].includes(lowered)) return true;
  if (['0', 'false', 'off', 'no'].includes(lowered)) return false;
  throw new ConfigError(name, `must be one of true/false/on/off/1/0, got "${raw}"`);
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = str(env, name);
  if (raw === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(name, `must be one of ${allowed.join(', ')}, got "${raw}"`);
  }
  return raw as T;
}

function url(env: Env, name: string, protocols: readonly string[]): string | undefined {
  const raw = str(env, name);
  if (raw === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, 'must be a URL');
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(name, `must use one of ${protocols.join(', ')}, got "${parsed.protocol}"`);
  }
  return raw;
}

/**
 * A URL the server calls with a key of its own (`AI_BASE_URL`): credentials in it would be sent
 * nowhere useful and written to the logs with the URL, so they are refused (the key has its own
 * variable). The message never repeats the value.
 */
function serviceUrl(env: Env, name: string, protocols: readonly string[]): string | undefined {
  const value = url(env, name, protocols);
  if (value !== undefined) {
    const parsed = new URL(value);
    if (parsed.username !== '' || parsed.password !== '') {
      throw new ConfigError(name, 'must not contain a user name or password (give the key in AI_API_KEY)');
    }
  }
  return value;
}

function retrySchedule(env: Env): number[] {
  const raw = str(env, 'WEBHOOK_RETRY_SCHEDULE');
  if (raw === undefined) return [...DEFAULT_RETRY_SCHEDULE];
  const parts = raw.split(',').map((part) => part.trim());
  if (parts.length === 0 || parts.length > 20 || parts.some((part) => !/^\d+(\.\d+)?$/.test(part))) {
    throw new ConfigError(
      'WEBHOOK_RETRY_SCHEDULE',
      'must be 1 to 20 comma-separated numbers of seconds, e.g. "5,300,1800"',
    );
  }
  return parts.map(Number);
}

function redisKeyPrefix(env: Env): string {
  const raw = env.REDIS_KEY_PREFIX;
  if (raw === undefined) return 'cp:';
  if (!/^[\w:.-]{0,64}$/.test(raw)) {
    throw new ConfigError('REDIS_KEY_PREFIX', 'must be at most 64 letters, digits or _ : . -');
  }
  return raw;
}

const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

function trustProxy(env: Env): Config['trustProxy'] {
  const raw = str(env, 'TRUST_PROXY');
  if (raw === undefined || raw.trim() === '') return false;
  const entries = raw.split(',').map((entry) => entry.trim());
  for (const entry of entries) {
    const valid =
      PROXY_RANGE_NAMES.has(entry) || ipaddr.isValid(entry) || (entry.includes('/') && isCidr(entry));
    if (!valid) {
      throw new ConfigError(
        'TRUST_PROXY',
        `must list the proxies' addresses or CIDR ranges (or loopback, linklocal, uniquelocal), separated by commas; "${entry}" is neither (trusting every peer would let any client choose its address)`,
      );
    }
  }
  return entries;
}

function isCidr(entry: string): boolean {
  try {
    ipaddr.parseCIDR(entry);
    return true;
  } catch {
    return false;
  }
}

function connections(env: Env): Config['connections'] {
  const requestTimeoutMs = int(env, 'REQUEST_TIMEOUT_MS', 30_000, 100, 3_600_000);
  const headersTimeoutMs = int(env, 'HEADERS_TIMEOUT_MS', Math.min(10_000, requestTimeoutMs), 100, 600_000);
  if (headersTimeoutMs > requestTimeoutMs) {
    throw new ConfigError('HEADERS_TIMEOUT_MS', `must not be over REQUEST_TIMEOUT_MS (${requestTimeoutMs})`);
  }
  return {
    max: int(env, 'MAX_CONNECTIONS', 1_000, 1, 1_000_000),
    headersTimeoutMs,
    requestTimeoutMs,
    lingerTimeoutMs: int(env, 'LINGER_TIMEOUT_MS', 5_000, 0, 600_000),
    lingerMaxBytes: int(env, 'LINGER_MAX_BYTES', 64 * 1024 * 1024, 0, 1024 * 1024 * 1024),
  };
}

/** `PAYMENT_SANDBOX_JOURNAL`: an absolute path, resolved as DATA_DIR is. */
function sandboxJournal(env: Env): string | undefined {
  const raw = str(env, 'PAYMENT_SANDBOX_JOURNAL');
  return raw === undefined ? undefined : path.resolve(raw);
}

export function loadConfig(env: Env = process.env): Config {
  const tlsEnabled = bool(env, 'TLS', true);
  const certFile = str(env, 'TLS_CERT');
  const keyFile = str(env, 'TLS_KEY');
  if ((certFile === undefined) !== (keyFile === undefined)) {
    throw new ConfigError(
      certFile === undefined ? 'TLS_CERT' : 'TLS_KEY',
      'must be set together with the other',
    );
  }
  const schema = str(env, 'DATABASE_SCHEMA');
  if (schema !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
    throw new ConfigError('DATABASE_SCHEMA', 'must be a lower-case SQL identifier');
  }
  const config: Config = {
    port: int(env, 'PORT', 8443, 0, 65535),
    host: str(env, 'HOST') ?? '127.0.0.1',
    dataDir: path.resolve(str(env, 'DATA_DIR') ?? './data'),
    databaseUrl: url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    databaseSchema: schema,
    databaseLockTimeoutMs: int(env, 'DATABASE_LOCK_TIMEOUT_MS', 5_000, 100, 3_600_000),
    databaseStatementTimeoutMs: int(env, 'DATABASE_STATEMENT_TIMEOUT_MS', 30_000, 100, 86_400_000),
    databaseTenantConnections:
      str(env, 'DATABASE_TENANT_CONNECTIONS') === undefined
        ? undefined
        : int(env, 'DATABASE_TENANT_CONNECTIONS', 1, 1, 1_000),
    databasePreparedStatements: bool(env, 'DATABASE_PREPARED_STATEMENTS', true),
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    redisKeyPrefix: redisKeyPrefix(env),
    tls: { enabled: tlsEnabled, certFile, keyFile },
    logLevel: oneOf(env, 'LOG_LEVEL', LOG_LEVELS, 'info'),
    demoData: bool(env, 'DEMO_DATA', true),
    ai: {
      provider: oneOf(env, 'AI_PROVIDER', ['builtin', 'openai'] as const, 'builtin'),
      baseUrl: serviceUrl(env, 'AI_BASE_URL', ['http:', 'https:']),
      apiKey: str(env, 'AI_API_KEY'),
      model: str(env, 'AI_MODEL'),
      timeoutMs: int(env, 'AI_TIMEOUT_MS', 30_000, 100, 600_000),
    },
    webhooks: {
      allowInsecure: bool(env, 'WEBHOOK_ALLOW_INSECURE', false),
      timeoutMs: int(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100, 120_000),
      retryScheduleSeconds: retrySchedule(env),
      workerInProcess: bool(env, 'WEBHOOK_WORKER_IN_PROCESS', true),
    },
    eventRetentionDays: int(env, 'EVENT_RETENTION_DAYS', 30, 1, 3650),
    requestLogDays: int(env, 'REQUEST_LOG_DAYS', 30, 1, 3650),
    shutdownTimeoutMs: int(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000),
    connections: connections(env),
    trustProxy: trustProxy(env),
    passwordScryptLog2N: int(env, 'PASSWORD_SCRYPT_LOG2N', 17, 10, 20),
    checkoutLeaseMs: int(env, 'CHECKOUT_LEASE_MS', 120_000, 1_000, 3_600_000),
    paymentSandbox: {
      delayMs: int(env, 'PAYMENT_SANDBOX_DELAY_MS', 0, 0, 60_000),
      journal: sandboxJournal(env),
    },
  };
  if (config.ai.provider === 'openai' && config.ai.baseUrl === undefined && config.ai.apiKey === undefined) {
    throw new ConfigError('AI_API_KEY', 'or AI_BASE_URL must be set when AI_PROVIDER=openai');
  }
  return Object.freeze(config);
}
