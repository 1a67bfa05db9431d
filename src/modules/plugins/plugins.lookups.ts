import type { Db } from '../../db/store.js';
import type { PluginsTable } from '../../db/schema.js';
import { notFound } from '../../lib/errors.js';
import type { Vocabulary } from '../../kernel/vocabulary.js';
import * as repo from './plugins.repository.js';
import type { PluginObject } from './plugins.schemas.js';
import { presentPlugin } from './plugins.presenter.js';

/** A plugin found for a tenant: as it sees it, its catalog entry, or one of its own (else 404). */

/** The plugin behind `ref` as the tenant sees it, or 404. */
export async function loadPlugin(
  db: Db,
  vocabulary: Vocabulary,
  tenantId: string,
  ref: string,
): Promise<PluginObject> {
  const row = await repo.findPlugin(db, tenantId, ref);
  if (!row) throw notFound('plugin');
  return presentPlugin(row, tenantId, vocabulary);
}

/** The plugin behind `ref` (an id or a slug) if the tenant may see it, or 404. */
export async function entry(db: Db, tenantId: string, ref: string, lock = false) {
  const found = await repo.findCatalogEntry(db, tenantId, ref, lock);
  if (!found) throw notFound('plugin');
  return found;
}

/** One of the tenant's own plugins; anyone else's is 404, as if it did not exist. */
export async function owned(db: Db, tenantId: string, ref: string, lock = false): Promise<PluginsTable> {
  const found = await entry(db, tenantId, ref, lock);
  if (found.owner_tenant_id !== tenantId) throw notFound('plugin');
  return found;
}
