import type { components, operations } from '../../clients/typescript/src/generated/schema.js';

/**
 * The shapes the console reads: the OpenAPI document's, as the TypeScript client's generated types
 * give them (types only; the console imports nothing from the server's code). The account routes
 * are the console's own and not in the document: their shapes are written out below.
 */

type Schemas = components['schemas'];

/** The JSON answer of an operation that succeeded, for operations whose answer is no named schema. */
export type Answer<Id extends keyof operations> = operations[Id]['responses'] extends {
  200: { content: { 'application/json': infer T } };
}
  ? T
  : never;

/** The JSON body an operation takes. */
export type JsonBody<Id extends keyof operations> = operations[Id] extends {
  requestBody?: { content: { 'application/json': infer T } };
}
  ? T
  : never;

export type ApiKey = Schemas['ApiKey'];
export type Webhook = Schemas['WebhookEndpoint'];
export type Delivery = Schemas['Delivery'];
/** A delivery as an event's log lists it, with the endpoint it went to. */
export type EventDelivery = Schemas['EventDelivery'];
export type Analytics = Answer<'getAnalytics'>;
export type Order = Schemas['Order'];
export type Product = Schemas['Product'];
export type WalletBalances = Schemas['WalletList'];
export type WebhookEvent = Schemas['Event'];
export type Plugin = Schemas['Plugin'];
export type PluginInstallation = Schemas['PluginInstallation'];
export type PluginDelivery = Schemas['PluginDelivery'];
export type Usage = Answer<'getUsage'>;
export type VersionList = Answer<'listVersions'>;
export type Import = Schemas['Import'];
export type ImportError = Schemas['ImportError'];
export type Variant = Schemas['Variant'];
export type ProductOption = Schemas['ProductOption'];
export type Customer = Schemas['Customer'];
export type Address = Schemas['Address'];
export type Refund = Schemas['Refund'];
export type Cart = Schemas['Cart'];
export type Settings = Schemas['Settings'];
export type Generation = Schemas['Generation'];

/** `GET /v1/versions` with what the console shows of it: the releases' names, and whether to upgrade. */
export interface Versions extends VersionList {
  latest_release: string;
  pinned_release: string;
  upgrade_available: boolean;
}

/** A page of a list, as every `/v1` list answers. */
export interface Page<T> {
  data: T[];
  total: number;
  page: number;
  limit: number;
  offset: number;
  has_more: boolean;
  next_cursor: string | null;
}

type PlanName = 'free' | 'pro' | 'enterprise';

/** `GET /console/api/session` (and what login answers): who is logged in, their store and its limits. */
export interface Account {
  user: { id: string; email: string; name: string; role: string };
  tenant: { id: string; name: string; plan: PlanName; currency: string; api_version: string };
  plans: { name: PlanName; hourly: number; monthly: number; current: boolean }[];
  /** The limits the store's API keys get now (`custom`: the operator set the store's own). */
  limits: { hourly: number; monthly: number; custom: boolean };
  /** Sent as `X-CSRF-Token` on every call made with the session. */
  csrf_token: string;
  expires_at: string;
}

/** What sign-up answers: the account, and the first API key (its full value, shown once). */
export interface SignupResult extends Account {
  api_key: ApiKey;
}
