import { createHash, randomBytes } from 'node:crypto';
import { type Kysely, sql } from 'kysely';

/**
 * Plugins become apps. A plugin gains an owner (the tenant that publishes it; null for the
 * platform's own), a review `status`, the URL its events are delivered to and the secret that signs
 * them; an installation gains an id (`ins_`), the token it acts with (only its SHA-256 is kept) and
 * the webhook endpoint that subscribes its URL for the installing tenant. Endpoints say which
 * plugin installation they belong to, and calls made with an installation token are metered per
 * plugin.
 *
 * The catalog of release v2.4 described plugins that did nothing. They are removed with their
 * installations and ratings, except "AI Product Copywriter", whose promise (a description for every
 * new product, written by the built-in AI writer) the first-party "AI Autowriter" now keeps: it
 * becomes that plugin (same id, same permissions), and each installation of it becomes a real one
 * here (a token, the subscription of its events, an `app.installed` event queued to it), so those
 * stores get what they installed. "Sold-out hider" is added. The catalog's invented install and
 * rating figures are replaced by the stores' real installations and ratings.
 *
 * Frozen: this file imports no module code; it writes rows as this release shapes them.
 */

const AUTOWRITER_ID = 'plg_PC8mtaZFdtNl1B4GuNNGNQka';
const SOLD_OUT_HIDER_ID = 'plg_Vq3sX8hT2mKd9RpL4wZy6NbC';
const PLATFORM_AUTHOR = 'Commerce Platform';
const API_VERSION = '2026-12-15';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

function base62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248) out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

interface OldInstallation {
  tenant_id: string;
  plugin_id: string;
  installed_at: number;
}

// Migrations receive an untyped Kysely: they describe the schema as it was at that point.
export async function up(db: Kysely<unknown>): Promise<void> {
  const now = Date.now();
  const alter = () => db.schema.alterTable('plugins');
  await alter()
    .addColumn('owner_tenant_id', 'text', (c) => c.references('tenants.id'))
    .execute();
  await alter()
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('published'))
    .execute();
  await alter().addColumn('rejection_reason', 'text').execute();
  await alter().addColumn('webhook_url', 'text').execute();
  await alter().addColumn('homepage_url', 'text').execute();
  await alter().addColumn('secret', 'text').execute();
  await alter().addColumn('runtime', 'text').execute();
  await alter()
    .addColumn('created', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await alter()
    .addColumn('updated', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createIndex('plugins_owner_idx')
    .on('plugins')
    .columns(['owner_tenant_id', 'created', 'id'])
    .execute();

  await db.schema.alterTable('webhook_endpoints').addColumn('plugin_id', 'text').execute();
  await db.schema.alterTable('webhook_endpoints').addColumn('installation_id', 'text').execute();
  await db.schema
    .createIndex('webhook_endpoints_plugin_idx')
    .on('webhook_endpoints')
    .columns(['plugin_id', 'id'])
    .execute();

  const anyDb = db as Kysely<Record<string, Record<string, unknown>>>;
  const old = (await anyDb
    .selectFrom('plugin_installations')
    .select(['tenant_id', 'plugin_id', 'installed_at'])
    .where('plugin_id', '=', AUTOWRITER_ID)
    .orderBy('installed_at')
    .orderBy('tenant_id')
    .execute()) as unknown as OldInstallation[];

  // The pretend catalog goes, with what stores did with it.
  await anyDb.deleteFrom('plugin_ratings').where('plugin_id', '<>', AUTOWRITER_ID).execute();
  await anyDb.deleteFrom('plugin_installations').execute();
  await db.schema.dropTable('plugin_installations').execute();
  await anyDb.deleteFrom('plugins').where('id', '<>', AUTOWRITER_ID).execute();

  await db.schema
    .createTable('plugin_installations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('plugin_id', 'text', (c) => c.notNull().references('plugins.id'))
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('permissions', 'text', (c) => c.notNull())
    .addColumn('events', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('token_last4', 'text', (c) => c.notNull())
    .addColumn('endpoint_id', 'text', (c) => c.notNull())
    .addColumn('installed_at', 'bigint', (c) => c.notNull())
    .addColumn('uninstalled_at', 'bigint')
    .execute();
  await sql`CREATE UNIQUE INDEX plugin_installations_active_idx ON plugin_installations (tenant_id, plugin_id)
    WHERE uninstalled_at IS NULL`.execute(db);
  await db.schema
    .createIndex('plugin_installations_plugin_idx')
    .on('plugin_installations')
    .columns(['plugin_id', 'installed_at', 'id'])
    .execute();

  await db.schema
    .createTable('usage_apps_daily')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('day', 'bigint', (c) => c.notNull())
    .addColumn('plugin_id', 'text', (c) => c.notNull())
    .addColumn('endpoint', 'text', (c) => c.notNull())
    .addColumn('calls', 'bigint', (c) => c.notNull())
    .addColumn('errors', 'bigint', (c) => c.notNull())
    .addColumn('duration_us', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('usage_apps_daily_pk', ['tenant_id', 'day', 'plugin_id', 'endpoint'])
    .execute();

  // The two first-party plugins.
  const autowriter = {
    slug: 'ai-autowriter',
    name: 'AI Autowriter',
    category: 'marketing',
    author: PLATFORM_AUTHOR,
    description:
      'Writes a description for every new product that has none, with the AI provider this platform is configured with, and saves it to the product.',
    permissions: JSON.stringify(['read:products', 'write:products', 'write:ai']),
    events: JSON.stringify(['product.created']),
    status: 'published',
    webhook_url: 'internal://first-party/ai-autowriter',
    secret: newSecret(),
    runtime: 'ai-autowriter',
    created: now,
    updated: now,
  };
  const autowriterExists = await anyDb
    .selectFrom('plugins')
    .select('id')
    .where('id', '=', AUTOWRITER_ID)
    .executeTakeFirst();
  if (autowriterExists) {
    await anyDb.updateTable('plugins').set(autowriter).where('id', '=', AUTOWRITER_ID).execute();
  } else {
    await anyDb
      .insertInto('plugins')
      .values({ id: AUTOWRITER_ID, ...autowriter, installs: 0, rating_sum: 0, rating_count: 0 })
      .execute();
  }
  await anyDb
    .insertInto('plugins')
    .values({
      id: SOLD_OUT_HIDER_ID,
      slug: 'sold-out-hider',
      name: 'Sold-out hider',
      category: 'inventory',
      author: PLATFORM_AUTHOR,
      description:
        'Sets a product to draft when all of its stock is gone, so shoppers do not find what they cannot buy, and back to active when it is restocked.',
      permissions: JSON.stringify(['read:products', 'write:products']),
      events: JSON.stringify(['product.outofstock', 'product.updated']),
      installs: 0,
      rating_sum: 0,
      rating_count: 0,
      status: 'published',
      webhook_url: 'internal://first-party/sold-out-hider',
      secret: newSecret(),
      runtime: 'sold-out-hider',
      created: now,
      updated: now,
    })
    .execute();

  // Each store that installed the copywriter gets the real installation of the autowriter.
  for (const installation of old) {
    const owner = (await anyDb
      .selectFrom('users')
      .select('id')
      .where('tenant_id', '=', installation.tenant_id)
      .orderBy('created')
      .orderBy('id')
      .executeTakeFirst()) as { id: string } | undefined;
    if (!owner) continue;
    const id = `ins_${base62(24)}`;
    const token = `sk_app_${base62(40)}`;
    const endpointId = `wh_${base62(24)}`;
    const eventId = `evt_${base62(24)}`;
    await anyDb
      .insertInto('webhook_endpoints')
      .values({
        id: endpointId,
        tenant_id: installation.tenant_id,
        url: autowriter.webhook_url,
        events: autowriter.events,
        description: `${autowriter.name} (installed app)`,
        status: 'Active',
        secret: autowriter.secret,
        retired_secrets: '[]',
        api_version: API_VERSION,
        last_triggered: null,
        failing_since: null,
        created: now,
        updated: now,
        plugin_id: AUTOWRITER_ID,
        installation_id: id,
      })
      .execute();
    await anyDb
      .insertInto('plugin_installations')
      .values({
        id,
        tenant_id: installation.tenant_id,
        plugin_id: AUTOWRITER_ID,
        user_id: owner.id,
        permissions: autowriter.permissions,
        events: autowriter.events,
        token_hash: createHash('sha256').update(token).digest('hex'),
        token_last4: token.slice(-4),
        endpoint_id: endpointId,
        installed_at: Number(installation.installed_at),
        uninstalled_at: null,
      })
      .execute();
    const object = {
      id,
      installation_id: id,
      plugin_id: AUTOWRITER_ID,
      tenant_id: installation.tenant_id,
      access_token: token,
      permissions: JSON.parse(autowriter.permissions) as string[],
      events: JSON.parse(autowriter.events) as string[],
    };
    await anyDb
      .insertInto('events')
      .values({
        id: eventId,
        tenant_id: installation.tenant_id,
        type: 'app.installed',
        object_type: 'app_installation',
        object_id: id,
        data: JSON.stringify(object),
        extra: null,
        created: now,
      })
      .execute();
    await anyDb
      .insertInto('webhook_deliveries')
      .values({
        id: `del_${base62(24)}`,
        tenant_id: installation.tenant_id,
        endpoint_id: endpointId,
        event_id: eventId,
        event_type: 'app.installed',
        attempt: 1,
        manual: 0,
        status: 'pending',
        due_at: now,
        lease_until: null,
        lease_owner: null,
        held: 0,
        time: null,
        url: null,
        response: null,
        response_status: null,
        response_body: null,
        duration: null,
        next_retry_at: null,
        created: now,
      })
      .execute();
  }

  // Real figures only: installations and ratings that stores made.
  await sql`UPDATE plugins SET
      installs = (SELECT count(*) FROM plugin_installations i
                  WHERE i.plugin_id = plugins.id AND i.uninstalled_at IS NULL),
      rating_sum = coalesce((SELECT sum(r.stars) FROM plugin_ratings r WHERE r.plugin_id = plugins.id), 0),
      rating_count = (SELECT count(*) FROM plugin_ratings r WHERE r.plugin_id = plugins.id)`.execute(db);
}

export async function down(): Promise<void> {
  throw new Error('0028_plugin_apps removes the pretend catalog and cannot be undone');
}
