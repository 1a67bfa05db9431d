import {
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  type SelectModifier,
  SelectQueryNode,
  type UnknownRow,
} from 'kysely';

/** The row-lock clauses of a SELECT: PostgreSQL's `FOR UPDATE`, `FOR SHARE`, ... and their options. */
const ROW_LOCKS: ReadonlySet<SelectModifier> = new Set([
  'ForUpdate',
  'ForNoKeyUpdate',
  'ForShare',
  'ForKeyShare',
  'NoWait',
  'SkipLocked',
]);

/**
 * A row lock is one `.forUpdate()` in a repository, on either store. PostgreSQL takes the lock;
 * SQLite has no row locks and no such clause, and needs none: a write transaction there
 * (`BEGIN IMMEDIATE`, src/db/store.ts) already keeps every other writer out until it ends. This
 * plugin of the SQLite store drops the clause from a statement's outer SELECT (where repositories
 * put it); every other statement passes untouched, without a walk of its tree.
 */
export const withoutRowLocks: KyselyPlugin = {
  transformQuery({ node }: PluginTransformQueryArgs): RootOperationNode {
    if (!SelectQueryNode.is(node) || !node.endModifiers?.some((end) => isRowLock(end.modifier))) return node;
    const kept = node.endModifiers.filter((end) => !isRowLock(end.modifier));
    return { ...node, endModifiers: kept.length > 0 ? kept : undefined };
  },
  async transformResult({ result }: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return result;
  },
};

function isRowLock(modifier: SelectModifier | undefined): boolean {
  return modifier !== undefined && ROW_LOCKS.has(modifier);
}
