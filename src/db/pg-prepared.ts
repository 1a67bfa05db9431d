import { createHash } from 'node:crypto';
import pg from 'pg';

/**
 * PostgreSQL connections that prepare the statements they repeat (`DATABASE_PREPARED_STATEMENTS`,
 * on by default): from the fifth time a connection sends a statement with parameters, it sends it
 * as a named one, so the connection parses it once more and then only binds and runs it (pg skips
 * the parse; PostgreSQL keeps the statement for the connection's life and chooses between custom
 * and generic plans, as it does for any prepared statement). Once a pool's connections have
 * served a few orders, it takes the database's parsing of an order's 25 or so statements off
 * every order (docs/benchmarks.md, "Orders").
 *
 * What is named, and what is not:
 * - a statement's name is a digest of its text, the same in every connection and process;
 * - at most `MAX_NAMED` texts in a process, each of at most `MAX_PARAMETERS` parameters and
 *   `MAX_TEXT` characters: the statements the code writes, not every length of a bulk insert or
 *   of an `IN` list, each of which would be a statement of its own on every connection;
 * - statements without parameters (BEGIN, COMMIT, SET ...) are sent as they are.
 *
 * A table changed under a prepared statement (a release's migration while an older process still
 * serves) makes PostgreSQL refuse the statement whose rows would change shape (`0A000`, "cached
 * plan must not change result type"). The process then names its statements anew (new names, so
 * every connection prepares them again); the statement is sent again at once when no transaction was open,
 * and within one the transaction fails and is retried whole (`isStalePlan`, store.ts). Behind a
 * pooler that hands a session's statements to other sessions (PgBouncer in transaction mode before
 * 1.21), set `DATABASE_PREPARED_STATEMENTS=off`.
 */

const MAX_NAMED = 2_000;
/**
 * The time a connection sends a text that it prepares it (JDBC's `prepareThreshold` is 5 too): a
 * statement a connection sends once or twice costs less unnamed, as PostgreSQL keeps a named one's
 * parse in memory of its own, and weighs a generic plan for it after five runs.
 */
const PREPARE_AT = 5;
const MAX_PARAMETERS = 64;
const MAX_TEXT = 16_384;

/** The name of each text named so far in this process. */
const names = new Map<string, string>();
/**
 * Bumped when the server refuses a stale statement: every name changes, so every connection of the
 * process prepares its statements again (once each) instead of meeting the stale one in turn.
 */
let generation = 0;

/** Whether a call to pg's `query` is (text, values) of a statement small enough to be named. */
function preparable(text: unknown, values: unknown, callback: unknown): text is string {
  return (
    typeof text === 'string' &&
    Array.isArray(values) &&
    values.length > 0 &&
    values.length <= MAX_PARAMETERS &&
    text.length <= MAX_TEXT &&
    callback === undefined
  );
}

function nameOf(text: string): string | undefined {
  const known = names.get(text);
  if (known !== undefined) return known;
  if (names.size >= MAX_NAMED) return undefined;
  const name = `s${createHash('sha256').update(text).digest('base64url').slice(0, 24)}`;
  names.set(text, name);
  return name;
}

/** PostgreSQL's refusal to run a prepared statement whose table changed its rows' shape. */
export function isStalePlan(error: unknown): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    (error as { code?: unknown }).code === '0A000' &&
    String((error as { message?: unknown }).message).includes('cached plan must not change result type')
  );
}

type Query = (this: unknown, ...args: unknown[]) => unknown;
/** pg's own `query`, looked up at each call (so a wrapper of pg's, a test's count of statements, sees these too). */
const query = (): Query => pg.Client.prototype.query as unknown as Query;

/** A pg client class that prepares a statement with parameters once it has sent it `PREPARE_AT` times. */
export class PreparingClient extends pg.Client {
  /** Whether the connection was outside any transaction when it last became ready. */
  #idle = true;
  /** How often this connection has sent each text not yet prepared on it (up to `PREPARE_AT`). */
  #sent = new Map<string, number>();

  constructor(config?: string | pg.ClientConfig) {
    super(config);
    (this as unknown as { connection: NodeJS.EventEmitter }).connection.on(
      'readyForQuery',
      (message: { status: string }) => {
        this.#idle = message.status === 'I';
      },
    );
  }

  // Kysely sends (text, values) and awaits the promise; every other form goes through as it is.
  // @ts-expect-error pg's overloads: this one override serves all of them
  override query(...args: unknown[]): unknown {
    const [text, values, callback] = args as [unknown, unknown[], unknown];
    if (!preparable(text, values, callback)) return query().apply(this, args);
    const times = this.#sent.get(text) ?? 0;
    if (times < PREPARE_AT - 1) {
      if (this.#sent.size < MAX_NAMED) this.#sent.set(text, times + 1);
      return query().apply(this, args);
    }
    const name = nameOf(text);
    if (name === undefined) return query().apply(this, args);
    return this.#named(text, values, name);
  }

  async #named(text: string, values: unknown[], name: string): Promise<unknown> {
    const idle = this.#idle;
    const send = () =>
      query().call(this, { name: `${name}_${generation}`, text, values }) as Promise<unknown>;
    try {
      return await send();
    } catch (error) {
      if (!isStalePlan(error)) throw error;
      generation += 1;
      if (!idle) throw error;
      return send();
    }
  }
}
