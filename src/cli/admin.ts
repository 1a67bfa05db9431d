import os from 'node:os';
import { parseArgs } from 'node:util';
import type { Config } from '../config.js';
import { configOrExit, runAsEntryPoint } from '../entry.js';
import { createDeps, type Deps } from '../deps.js';
import { AppError } from '../lib/errors.js';
import type { Permission } from '../kernel/vocabulary.js';
import { createLogger } from '../lib/logger.js';
import type { Plan } from '../lib/principal.js';
import { type Actor, runAsActor } from '../modules/audit/index.js';
import { PLANS } from '../modules/tenants/index.js';

/**
 * Operator CLI: `npm run --silent admin -- <command> [options] [--json]`. Uses the same
 * environment as the server and is safe to run beside it. With `--json`, stdout carries exactly
 * one JSON document; diagnostics go to stderr; a failure exits non-zero.
 */

export class UsageError extends Error {}

/** `code`: the exit code when the command ran but found a problem (e.g. ledger:verify); default 0. */
type Output = { json: unknown; text: string; code?: number };
type Command = (deps: Deps, args: string[]) => Promise<Output>;

const USAGE = `Usage: npm run --silent admin -- <command> [options] [--json]

Commands:
  tenant:create --name N --email E [--password P] [--plan free|pro|enterprise] [--currency USD]
                [--api-version YYYY-MM-DD]
  key:create --tenant ID --name N --permissions p1,p2 [--expires-at ISO] [--mode live|test]
                                        a test key (sk_test_) opens the store's test mode
  tenant:set-limits --tenant ID [--plan P] [--hourly N|default] [--monthly N|default]
                [--daily-transfer N|default]
  wallet:credit --tenant ID --amount N --currency C [--description D]
  plugin:approve --plugin ID            publish a plugin that is in review, or make the pending
                                        revision of a published one live (shows its changes)
  plugin:reject --plugin ID --reason R  reject a plugin that is in review, or the pending revision
                                        of a published one (which stays as it is), saying why
  ledger:verify
  audit:verify --tenant ID              check the tenant's audit log hash chain (exit 1 if broken)
  help          this text (also --help or -h, alone or after a command)
`;

function parse<T extends Record<string, { type: 'string' | 'boolean' }>>(args: string[], options: T) {
  try {
    return parseArgs({ args, options: { ...options, json: { type: 'boolean' } }, strict: true }).values;
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

function required(value: string | boolean | undefined, flag: string): string {
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${flag} is required`);
  return value;
}

function plan(value: string | boolean | undefined): Plan | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !(PLANS as readonly string[]).includes(value)) {
    throw new UsageError(`--plan must be one of ${PLANS.join(', ')}`);
  }
  return value as Plan;
}

function limit(value: string | boolean | undefined, flag: string): number | null | undefined {
  if (value === undefined) return undefined;
  if (value === 'default') return null;
  if (typeof value !== 'string' || !/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 1e12) {
    throw new UsageError(`--${flag} must be a positive whole number or "default"`);
  }
  return Number(value);
}

type Review = Awaited<ReturnType<Deps['plugins']['review']>>;

/** A revision's changes, one line per field: `  name: "Stock Sync" -> "Stock Sync Pro"`. */
function revisionLines(review: Review): string[] {
  return Object.entries(review.revision?.changes ?? {}).map(
    ([field, change]) => `  ${field}: ${JSON.stringify(change.from)} -> ${JSON.stringify(change.to)}`,
  );
}

const commands: Record<string, Command> = {
  async 'tenant:create'(deps, args) {
    const v = parse(args, {
      name: { type: 'string' },
      email: { type: 'string' },
      password: { type: 'string' },
      plan: { type: 'string' },
      currency: { type: 'string' },
      'api-version': { type: 'string' },
    });
    const created = await deps.tenants.create({
      name: required(v.name, 'name'),
      email: required(v.email, 'email'),
      password: typeof v.password === 'string' ? v.password : undefined,
      plan: plan(v.plan),
      currency: typeof v.currency === 'string' ? v.currency : undefined,
      apiVersion: typeof v['api-version'] === 'string' ? v['api-version'] : undefined,
    });
    const wallet = await deps.wallet.balance(created.tenant);
    const loginPassword = typeof v.password === 'string';
    const json = {
      tenant: {
        id: created.tenant.id,
        name: created.tenant.name,
        plan: created.tenant.plan,
        api_version: created.tenant.api_version,
      },
      user: { id: created.user.id, email: created.user.email, can_log_in: loginPassword },
      api_key: { id: created.apiKey.id, key: created.apiKey.key, permissions: created.apiKey.permissions },
      wallet: { id: wallet.wallet_id, currency: wallet.currency },
    };
    const login = loginPassword
      ? `The owner logs in to the console with ${json.user.email} and the password given.`
      : 'No --password was given: this owner cannot log in to the console (the API key works).';
    return {
      json,
      text: [
        `Created tenant ${json.tenant.id} (${json.tenant.name}, ${json.tenant.plan}) with owner ${json.user.email}.`,
        `API key (shown once): ${json.api_key.key}`,
        `Wallet (${json.wallet.currency}): ${json.wallet.id}, the destination_wallet_id of a transfer to this tenant.`,
        login,
      ].join('\n'),
    };
  },

  async 'key:create'(deps, args) {
    const v = parse(args, {
      tenant: { type: 'string' },
      name: { type: 'string' },
      permissions: { type: 'string' },
      'expires-at': { type: 'string' },
      mode: { type: 'string' },
    });
    const tenantId = required(v.tenant, 'tenant');
    const mode = v.mode ?? 'live';
    if (mode !== 'live' && mode !== 'test') throw new UsageError('--mode must be live or test');
    const permissions = required(v.permissions, 'permissions')
      .split(',')
      .map((p) => p.trim())
      .filter(Boolean);
    const unknown = permissions.filter((p) => !deps.vocabulary.isPermission(p));
    if (unknown.length > 0 || permissions.length === 0) {
      throw new UsageError(`--permissions has unknown values: ${unknown.join(', ') || '(none given)'}`);
    }
    let expiresAt: number | null = null;
    if (v['expires-at'] !== undefined) {
      expiresAt = Date.parse(String(v['expires-at']));
      if (!(expiresAt > deps.clock.now()))
        throw new UsageError('--expires-at must be a future ISO 8601 time');
    }
    const live = await deps.tenants.pairedStoreOf(tenantId, 'live');
    const owner = await deps.tenants.ownerOf(live.id);
    // A test key is a key of the store's test mode, made the first time it is needed.
    const store = await deps.tenants.pairedStoreOf(live.id, mode);
    const key = await deps.store.transaction((trx) =>
      deps.apiKeys.insertKey(trx, {
        tenantId: store.id,
        userId: owner.id,
        mode,
        name: required(v.name, 'name'),
        permissions: permissions as Permission[],
        expiresAt,
      }),
    );
    const where = mode === 'test' ? `the test mode of ${live.id}` : live.id;
    return { json: key, text: `Created key ${key.id} for ${where}.\nAPI key (shown once): ${key.key}` };
  },

  async 'tenant:set-limits'(deps, args) {
    const v = parse(args, {
      tenant: { type: 'string' },
      plan: { type: 'string' },
      hourly: { type: 'string' },
      monthly: { type: 'string' },
      'daily-transfer': { type: 'string' },
    });
    const dailyTransfer = limit(v['daily-transfer'], 'daily-transfer');
    const tenant = await deps.tenants.setLimits(required(v.tenant, 'tenant'), {
      plan: plan(v.plan),
      hourly: limit(v.hourly, 'hourly'),
      monthly: limit(v.monthly, 'monthly'),
    });
    const daily =
      dailyTransfer === undefined
        ? undefined
        : await deps.wallet.setDailyTransferLimit(tenant.id, dailyTransfer);
    const json = {
      tenant: {
        id: tenant.id,
        plan: tenant.plan,
        hourly_limit: tenant.hourly_limit,
        monthly_limit: tenant.monthly_limit,
        ...(daily ? { daily_transfer_limit: daily.daily_transfer_limit } : {}),
      },
    };
    const dailyText =
      dailyTransfer === undefined ? '' : `, daily transfer ${dailyTransfer ?? 'no limit'} per wallet`;
    return {
      json,
      text: `Tenant ${tenant.id}: plan ${tenant.plan}, hourly ${tenant.hourly_limit ?? 'plan default'}, monthly ${tenant.monthly_limit ?? 'plan default'}${dailyText}.`,
    };
  },

  async 'plugin:approve'(deps, args) {
    const v = parse(args, { plugin: { type: 'string' } });
    const { revision, ...plugin } = await deps.plugins.review(required(v.plugin, 'plugin'), {
      approve: true,
    });
    if (!revision) return { json: { plugin }, text: `Plugin ${plugin.id} (${plugin.name}) is published.` };
    return {
      json: { plugin, revision },
      text: [
        `Plugin ${plugin.id} (${plugin.name}): its revision is approved and live. Changes:`,
        ...revisionLines({ ...plugin, revision }),
      ].join('\n'),
    };
  },

  async 'plugin:reject'(deps, args) {
    const v = parse(args, { plugin: { type: 'string' }, reason: { type: 'string' } });
    const reason = required(v.reason, 'reason').trim();
    if (reason === '' || reason.length > 1000) throw new UsageError('--reason must be 1 to 1000 characters');
    const { revision, ...plugin } = await deps.plugins.review(required(v.plugin, 'plugin'), {
      approve: false,
      reason,
    });
    if (!revision)
      return { json: { plugin }, text: `Plugin ${plugin.id} (${plugin.name}) is rejected: ${reason}` };
    return {
      json: { plugin, revision },
      text: [
        `Plugin ${plugin.id} (${plugin.name}): its revision is rejected (${reason}); the plugin stays as it is. Changes refused:`,
        ...revisionLines({ ...plugin, revision }),
      ].join('\n'),
    };
  },

  async 'wallet:credit'(deps, args) {
    const v = parse(args, {
      tenant: { type: 'string' },
      amount: { type: 'string' },
      currency: { type: 'string' },
      description: { type: 'string' },
    });
    const amount = required(v.amount, 'amount');
    if (!/^\d+$/.test(amount) || Number(amount) < 1) {
      throw new UsageError('--amount must be a positive whole number of minor units');
    }
    const transaction = await deps.wallet.credit(required(v.tenant, 'tenant'), {
      amount: Number(amount),
      currency: required(v.currency, 'currency'),
      description: typeof v.description === 'string' ? v.description : undefined,
    });
    return {
      json: transaction,
      text: `Credited ${transaction.amount} ${transaction.currency} (${transaction.id}); balance ${transaction.balance_after}.`,
    };
  },

  async 'audit:verify'(deps, args) {
    const v = parse(args, { tenant: { type: 'string' } });
    const report = await deps.auditLog.verify(required(v.tenant, 'tenant'));
    const text = report.ok
      ? `Audit log OK: ${report.checked} entries of ${report.tenant_id}, each hash follows from the one before.`
      : `Audit log BROKEN at entry ${report.broken?.seq ?? '?'}${report.broken?.id ? ` (${report.broken.id})` : ''}: ${report.broken?.reason ?? ''}; ${report.checked} entries before it check out.`;
    return { json: report, text, code: report.ok ? 0 : 1 };
  },

  async 'ledger:verify'(deps, args) {
    parse(args, {});
    const report = await deps.wallet.verify();
    const size = `${report.checked.accounts} accounts (${report.checked.wallets} wallets), ${report.checked.entries} entries, ${report.checked.postings} postings, ${report.checked.transfers} transfers`;
    const text = report.ok
      ? `Ledger OK: ${size}; every currency sums to zero.`
      : [
          `Ledger INVALID: ${report.violations.length} check(s) failed over ${size}.`,
          ...report.violations.map(
            (v) => `  ${v.check}: ${v.detail}, e.g. ${JSON.stringify(v.rows.slice(0, 3))}`,
          ),
        ].join('\n');
    return { json: report, text, code: report.ok ? 0 : 1 };
  },
};

/** The operator running the CLI, as the audit log names them: the system user's name. */
function operator(): Actor {
  let name = 'operator';
  try {
    name = os.userInfo().username;
  } catch {
    // No user entry for the process's uid (a bare container): the generic name stands.
  }
  return { type: 'operator', id: name, name: `${name}@${os.hostname()}` };
}

const HELP = new Set(['help', '--help', '-h']);

/** `help`, `--help` or `-h` as the command, or `--help`/`-h` after one: the usage, on stdout. */
export function asksForHelp(argv: readonly string[]): boolean {
  const [name, ...args] = argv;
  return HELP.has(name ?? '') || args.some((arg) => arg === '--help' || arg === '-h');
}

export async function runAdmin(
  argv: string[],
  config: Config,
): Promise<{ code: number; stdout: string; stderr: string }> {
  if (asksForHelp(argv)) return { code: 0, stdout: USAGE, stderr: '' };
  const [name, ...args] = argv;
  const command = name === undefined ? undefined : commands[name];
  if (!command) {
    return { code: 2, stdout: '', stderr: `${name ? `Unknown command "${name}".\n\n` : ''}${USAGE}` };
  }
  // Logs go to stderr (fd 2): stdout is reserved for the command's output.
  const logger = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel, 2);
  const deps = await createDeps(config, { logger });
  try {
    // What a command changes is the operator's doing in the audit log.
    const output = await runAsActor(operator(), () => command(deps, args));
    const json = args.includes('--json');
    return {
      code: output.code ?? 0,
      stdout: json ? `${JSON.stringify(output.json)}\n` : `${output.text}\n`,
      stderr: '',
    };
  } catch (error) {
    if (error instanceof UsageError) return { code: 2, stdout: '', stderr: `${error.message}\n\n${USAGE}` };
    if (error instanceof AppError) {
      const fields = error.errors?.map((e) => `${e.field} ${e.message}`).join('; ');
      return { code: 1, stdout: '', stderr: `Error (${error.code}): ${fields ?? error.detail}\n` };
    }
    throw error;
  } finally {
    await deps.close();
  }
}

async function main(): Promise<void> {
  // The usage needs no configuration: it is printed even where the environment is not set up.
  if (asksForHelp(process.argv.slice(2))) {
    process.stdout.write(USAGE);
    return;
  }
  const result = await runAdmin(process.argv.slice(2), configOrExit());
  process.stdout.write(result.stdout);
  process.stderr.write(result.stderr);
  process.exitCode = result.code;
}

runAsEntryPoint(import.meta.url, 'Failed', main);
