import type { CompiledQuery, KyselyPlugin } from 'kysely';
import type { Db } from '../../src/db/store.js';

/** The queries `fn` sends through `db`, compiled, so a test can ask the database for their plan. */
export async function sentQueries(db: Db, fn: (db: Db) => Promise<unknown>): Promise<CompiledQuery[]> {
  const sent: CompiledQuery[] = [];
  const recorder: KyselyPlugin = {
    transformQuery(args) {
      sent.push(db.getExecutor().compileQuery(args.node, args.queryId));
      return args.node;
    },
    transformResult: async (args) => args.result,
  };
  await fn(db.withPlugin(recorder));
  return sent;
}
