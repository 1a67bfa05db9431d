import type { Static } from 'typebox';
import type { Envelope } from '../../src/lib/paging.js';
import type { ApiKeySchema } from '../../src/modules/api-keys/api-keys.schemas.js';
import type { AccountSchema, SignupResultSchema } from '../../src/modules/console/console.schemas.js';
import type { EventObject } from '../../src/modules/events/events.service.js';
import type { ImportErrorSchema, ImportSchema } from '../../src/modules/imports/imports.schemas.js';
import type { PluginSchema, RatingSchema } from '../../src/modules/plugins/plugins.schemas.js';
import type { AnalyticsSchema } from '../../src/modules/analytics/analytics.schemas.js';
import type { OrderSchema } from '../../src/modules/orders/orders.schemas.js';
import type { ProductSchema } from '../../src/modules/products/products.schemas.js';
import type { UsageSchema } from '../../src/modules/usage/usage.schemas.js';
import type { BalanceListSchema } from '../../src/modules/wallet/wallet.schemas.js';
import type { VersionListSchema } from '../../src/modules/versions/versions.schemas.js';
import type {
  DeliverySchema,
  EventDeliverySchema,
  WebhookSchema,
} from '../../src/modules/webhooks/webhooks.schemas.js';

/** The response shapes the console reads, from the server's own schemas (types only). */

export type Account = Static<typeof AccountSchema>;
export type SignupResult = Static<typeof SignupResultSchema>;
export type ApiKey = Static<typeof ApiKeySchema>;
export type Webhook = Static<typeof WebhookSchema>;
export type Delivery = Static<typeof DeliverySchema>;
/** A delivery as an event's log lists it, with the endpoint it went to. */
export type EventDelivery = Static<typeof EventDeliverySchema>;
export type Analytics = Static<typeof AnalyticsSchema>;
export type Order = Static<typeof OrderSchema>;
export type Product = Static<typeof ProductSchema>;
export type WalletBalances = Static<typeof BalanceListSchema>;
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
