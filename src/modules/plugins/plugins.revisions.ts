import type { Clock } from '../../lib/clock.js';
import { iso } from '../../lib/clock.js';
import type { Db } from '../../db/store.js';
import type { PluginRevisionsTable, PluginsTable } from '../../db/schema.js';
import { AppError } from '../../lib/errors.js';
import type { EventType, Permission, Vocabulary } from '../../kernel/vocabulary.js';
import type { Principal } from '../../lib/principal.js';
import type { EventService } from '../events/index.js';
import type { WebhookService } from '../webhooks/index.js';
import { eventList, type Grant, permissionList, regrant, sameSet } from './plugins.grants.js';
import * as repo from './plugins.repository.js';
import type { PluginRevisionObject } from './plugins.schemas.js';

/**
 * Changes to a published plugin are revisions, reviewed as the plugin itself was. The approved
 * plugin stays live (marketplace, installations, deliveries) while its one revision waits; the
 * operator approves it (its changes apply, in one transaction, to the plugin and every
 * installation) or rejects it (nothing changes). An approved revision that asks for more
 * permissions or events than a store granted leaves that store's installation on its grant, with
 * the rest waiting for the store to accept it; asking for less shrinks every installation at once.
 */

export type RevisionChanges = PluginRevisionObject['changes'];

/** The fields a revision may change (never the slug: links and lookups use it). */
const REVISED_FIELDS = [
  'name',
  'description',
  'category',
  'homepage_url',
  'webhook_url',
  'permissions',
  'events',
] as const;
type RevisedField = (typeof REVISED_FIELDS)[number];

type FieldValue = string | string[] | null;

/** The operator's view of a revision: each changed field, live and proposed. */
export type RevisionDiff = Partial<Record<RevisedField, { from: FieldValue; to: FieldValue }>>;

const asPermissions = (values: readonly string[], vocabulary: Vocabulary): Permission[] =>
  values.filter(vocabulary.isPermission);
const asEvents = (values: readonly string[], vocabulary: Vocabulary): EventType[] =>
  values.filter(vocabulary.isEventType);

function liveValue(plugin: PluginsTable, field: RevisedField, vocabulary: Vocabulary): FieldValue {
  if (field === 'permissions') return permissionList(plugin.permissions, vocabulary);
  if (field === 'events') return eventList(plugin.events, vocabulary);
  return plugin[field];
}

function sameValue(a: FieldValue | undefined, b: FieldValue | undefined): boolean {
  return Array.isArray(a) && Array.isArray(b) ? sameSet(a, b) : a === b;
}

/** A stored revision's changes (written by `propose`; anything else in it is ignored). */
export function parseChanges(json: string, vocabulary: Vocabulary): RevisionChanges {
  const raw: unknown = JSON.parse(json);
  const out: RevisionChanges = {};
  if (typeof raw !== 'object' || raw === null) return out;
  const value = raw as Record<string, unknown>;
  const text = (key: string) => (typeof value[key] === 'string' ? value[key] : undefined);
  const list = (key: string) => {
    const found = value[key];
    return Array.isArray(found) ? found.filter((v): v is string => typeof v === 'string') : undefined;
  };
  const [name, description, category, webhook] = ['name', 'description', 'category', 'webhook_url'].map(text);
  if (name !== undefined) out.name = name;
  if (description !== undefined) out.description = description;
  if (category !== undefined) out.category = category;
  if (webhook !== undefined) out.webhook_url = webhook;
  if ('homepage_url' in value) out.homepage_url = text('homepage_url') ?? null;
  const permissions = list('permissions');
  if (permissions !== undefined) out.permissions = asPermissions(permissions, vocabulary);
  const events = list('events');
  if (events !== undefined) out.events = asEvents(events, vocabulary);
  return out;
}

/** The plugin's row changes that make `changes` live. */
export function pluginChanges(changes: RevisionChanges): repo.PluginChanges {
  const row: repo.PluginChanges = {};
  if (changes.name !== undefined) row.name = changes.name;
  if (changes.description !== undefined) row.description = changes.description;
  if (changes.category !== undefined) row.category = changes.category;
  if (changes.homepage_url !== undefined) row.homepage_url = changes.homepage_url;
  if (changes.webhook_url !== undefined) row.webhook_url = changes.webhook_url;
  if (changes.permissions !== undefined) row.permissions = JSON.stringify(changes.permissions);
  if (changes.events !== undefined) row.events = JSON.stringify(changes.events);
  return row;
}

/** Each field of `changes` that differs from the live plugin, with its live and new values. */
export function diffOf(plugin: PluginsTable, changes: RevisionChanges, vocabulary: Vocabulary): RevisionDiff {
  const diff: RevisionDiff = {};
  for (const field of REVISED_FIELDS) {
    const to = changes[field];
    const from = liveValue(plugin, field, vocabulary);
    if (to !== undefined && !sameValue(from, to)) diff[field] = { from, to };
  }
  return diff;
}

/** `changes` without the fields that equal the live plugin's. */
function withoutLive(
  plugin: PluginsTable,
  changes: RevisionChanges,
  vocabulary: Vocabulary,
): RevisionChanges {
  const out: RevisionChanges = { ...changes };
  for (const field of REVISED_FIELDS) {
    if (sameValue(liveValue(plugin, field, vocabulary), out[field])) delete out[field];
  }
  return out;
}

/** A revision as its publisher sees it, from the plugin's catalog row. */
export function presentRevision(
  row: {
    revision_changes: string | null;
    revision_status: PluginRevisionsTable['status'] | null;
    revision_rejection_reason: string | null;
    revision_created: number | null;
    revision_updated: number | null;
  },
  vocabulary: Vocabulary,
): PluginRevisionObject | null {
  if (row.revision_changes === null || row.revision_status === null) return null;
  return {
    status: row.revision_status,
    changes: parseChanges(row.revision_changes, vocabulary),
    rejection_reason: row.revision_rejection_reason,
    created: iso(Number(row.revision_created)),
    updated: iso(Number(row.revision_updated)),
  };
}

function conflict(detail: string): AppError {
  return new AppError('invalid_state_transition', detail);
}

export type PluginRevisions = ReturnType<typeof createPluginRevisions>;

export function createPluginRevisions(deps: {
  clock: Clock;
  events: EventService;
  vocabulary: Vocabulary;
  webhooks: Pick<WebhookService, 'movePlugin' | 'resubscribeInstallation' | 'queueTo'>;
}) {
  const { clock, events, vocabulary, webhooks } = deps;

  /**
   * Gives an installation its new grant and what waits for its store. When the grant changes, its
   * subscription follows and the app is told (`app.permissions_updated`, to its URL only).
   */
  async function grant(
    trx: Db,
    pluginId: string,
    installation: { id: string; tenant_id: string; endpoint_id: string },
    held: Grant,
    next: { grant: Grant; pending: Grant | null },
  ): Promise<void> {
    await repo.setGrant(trx, installation.id, {
      permissions: JSON.stringify(next.grant.permissions),
      events: JSON.stringify(next.grant.events),
      pending_permissions: next.pending === null ? null : JSON.stringify(next.pending.permissions),
      pending_events: next.pending === null ? null : JSON.stringify(next.pending.events),
    });
    const eventsChanged = !sameSet(held.events, next.grant.events);
    if (eventsChanged)
      await webhooks.resubscribeInstallation(trx, installation.endpoint_id, next.grant.events);
    if (!eventsChanged && sameSet(held.permissions, next.grant.permissions)) return;
    const event = await events.emit(trx, {
      tenantId: installation.tenant_id,
      type: 'app.permissions_updated',
      objectType: 'app_installation',
      object: {
        id: installation.id,
        installation_id: installation.id,
        plugin_id: pluginId,
        tenant_id: installation.tenant_id,
        permissions: next.grant.permissions,
        events: next.grant.events,
      },
    });
    await webhooks.queueTo(trx, installation.endpoint_id, event);
  }

  /** Every active installation of the plugin on its way to `wanted` (locked on PostgreSQL). */
  async function regrantAll(trx: Db, pluginId: string, wanted: Grant): Promise<void> {
    for (const installation of await repo.activeInstallationsOf(trx, pluginId, true)) {
      const held = {
        permissions: permissionList(installation.permissions, vocabulary),
        events: eventList(installation.events, vocabulary),
      };
      await grant(trx, pluginId, installation, held, regrant(held, wanted));
    }
  }

  return {
    /**
     * Records `changes` to the published `plugin` (row-locked by the caller) in its revision: merged
     * into the one it has, `pending` again if it was rejected. Fields equal to the live ones are
     * left out, and a revision left with nothing is withdrawn.
     */
    async propose(trx: Db, plugin: PluginsTable, changes: RevisionChanges): Promise<void> {
      const now = clock.now();
      const existing = await repo.findRevision(trx, plugin.id);
      const merged = withoutLive(
        plugin,
        { ...(existing ? parseChanges(existing.changes, vocabulary) : {}), ...changes },
        vocabulary,
      );
      if (Object.keys(merged).length === 0) {
        if (existing) await repo.deleteRevision(trx, plugin.id);
        return;
      }
      const json = JSON.stringify(merged);
      if (existing) {
        await repo.updateRevision(trx, plugin.id, {
          changes: json,
          status: 'pending',
          rejection_reason: null,
          updated: now,
        });
      } else {
        await repo.insertRevision(trx, {
          plugin_id: plugin.id,
          changes: json,
          status: 'pending',
          rejection_reason: null,
          created: now,
          updated: now,
        });
      }
    },

    /**
     * The operator's decision on the pending revision of the published `plugin` (row-locked by the
     * caller). Approved: the plugin takes its changes; a new URL moves every installation's
     * subscription; new permissions and events go to every installation as far as its store
     * granted them, the rest waiting for the store. Rejected: it stays, with the reason, and the
     * plugin is unchanged. Answers the changes, live and proposed.
     */
    async decide(
      trx: Db,
      plugin: PluginsTable,
      decision: { approve: true } | { approve: false; reason: string },
    ): Promise<{ status: 'approved' | 'rejected'; changes: RevisionDiff }> {
      const revision = await repo.findRevision(trx, plugin.id, true);
      if (!revision || revision.status !== 'pending') {
        throw conflict(
          'The plugin is published and has no revision awaiting review; only a plugin in review or a pending revision can be approved or rejected.',
        );
      }
      const changes = parseChanges(revision.changes, vocabulary);
      const diff = diffOf(plugin, changes, vocabulary);
      const now = clock.now();
      if (!decision.approve) {
        await repo.updateRevision(trx, plugin.id, {
          status: 'rejected',
          rejection_reason: decision.reason,
          updated: now,
        });
        return { status: 'rejected', changes: diff };
      }
      await repo.updatePlugin(trx, plugin.id, pluginChanges(changes), now);
      if (changes.webhook_url !== undefined) await webhooks.movePlugin(trx, plugin.id, changes.webhook_url);
      if (changes.permissions !== undefined || changes.events !== undefined) {
        await regrantAll(trx, plugin.id, {
          permissions:
            changes.permissions === undefined
              ? permissionList(plugin.permissions, vocabulary)
              : asPermissions(changes.permissions, vocabulary),
          events:
            changes.events === undefined
              ? eventList(plugin.events, vocabulary)
              : asEvents(changes.events, vocabulary),
        });
      }
      await repo.deleteRevision(trx, plugin.id);
      return { status: 'approved', changes: diff };
    },

    /**
     * The store accepts what its installation of `pluginId` waits for: its token holds those
     * permissions and its subscription those events from this commit. The calling key must hold
     * every one of those permissions, as to install (403 otherwise); nothing waiting is a 409.
     */
    async accept(trx: Db, principal: Principal, pluginId: string): Promise<void> {
      const tenantId = principal.tenant.id;
      const installation = await repo.findActiveInstallation(trx, tenantId, pluginId, true);
      if (!installation) throw conflict('The plugin is not installed in this store; install it instead.');
      if (installation.pending_permissions === null) {
        throw conflict('Nothing awaits acceptance: the installation holds everything the plugin asks for.');
      }
      const wanted = {
        permissions: permissionList(installation.pending_permissions, vocabulary),
        events: eventList(installation.pending_events, vocabulary),
      };
      const missing = wanted.permissions.find((permission) => !principal.key.permissions.has(permission));
      if (missing) {
        throw new AppError(
          'insufficient_permissions',
          `This plugin now needs ${missing}, which this API key does not hold; a key can only grant permissions it holds.`,
          { extra: { required_permission: missing } },
        );
      }
      const held = {
        permissions: permissionList(installation.permissions, vocabulary),
        events: eventList(installation.events, vocabulary),
      };
      await grant(trx, pluginId, installation, held, { grant: wanted, pending: null });
    },
  };
}
