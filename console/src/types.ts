import type { Static } from 'typebox';
import type { Envelope } from '../../src/lib/paging.js';
import type { ApiKeySchema } from '../../src/modules/api-keys/api-keys.schemas.js';
import type { AccountSchema, SignupResultSchema } from '../../src/modules/console/console.schemas.js';
import type { EventObject } from '../../src/modules/events/events.service.js';
import type { ImportErrorSchema, ImportSchema } from '../../src/modules/imports/imports.schemas.js';
import type { PluginSchema, RatingSchema } from '../../src/modules/plugins/plugins.schemas.js';
import type { UsageSchema } from '../../src/modules/usage/usage.schemas.js';
import type { VersionListSchema } from '../../src/modules/versions/versions.schemas.js';
import type { DeliverySchema, WebhookSchema } from '../../src/modules/webhooks/webhooks.schemas.js';

/** The response shapes the console reads, from the server's own schemas (types only). */

export type Account = Static<typeof AccountSchema>;
export type SignupResult = Static<typeof SignupResultSchema>;
export type ApiKey = Static<typeof ApiKeySchema>;
export type Webhook = Static<typeof WebhookSchema>;
export type Delivery = Static<typeof DeliverySchema>;
export type WebhookEvent = EventObject;
export type Plugin = Static<typeof PluginSchema>;
export type Rating = Static<typeof RatingSchema>;
export type Usage = Static<typeof UsageSchema>;
export type VersionList = Static<typeof VersionListSchema>;
export type Import = Static<typeof ImportSchema>;
export type ImportError = Static<typeof ImportErrorSchema>;

/** `GET /v1/versions` with what the console shows of it: the releases' names, and whether to upgrade. */
export interface Versions extends VersionList {
  latest_release: string;
  pinned_release: string;
  upgrade_available: boolean;
}

/** A page of a list, as every `/v1` list answers. */
export type Page<T> = Envelope<T>;
