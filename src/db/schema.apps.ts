/** Table types of plugins and first-party apps, usage metering, the console and AI generations (see schema.ts). */

export type PluginStatus = 'draft' | 'in_review' | 'published' | 'rejected';

export interface PluginsTable {
  id: string;
  /** Unique, lowercase, hyphenated: `sold-out-hider`. */
  slug: string;
  name: string;
  description: string;
  category: string;
  /** The publisher's name as shown in the marketplace (the owner tenant's name when it published). */
  author: string;
  /** JSON array of the permissions the plugin needs. */
  permissions: string;
  /** JSON array of the event types the plugin listens to. */
  events: string;
  /** Active installations (one per tenant that has it installed now). */
  installs: number;
  /** Sum and count of the stars of every tenant's rating. */
  rating_sum: number;
  rating_count: number;
  /** The tenant that publishes it; null for the platform's first-party plugins. */
  owner_tenant_id: string | null;
  status: PluginStatus;
  /** Why the operator rejected it (status `rejected`), else null. */
  rejection_reason: string | null;
  /** Where its events are delivered (`internal://first-party/...` for a first-party plugin). */
  webhook_url: string | null;
  homepage_url: string | null;
  /** `whsec_` + base64: signs every delivery to its installations; kept in clear to sign. */
  secret: string | null;
  /** The first-party runtime that serves it in process (`ai-autowriter`), or null. */
  runtime: string | null;
  created: number;
  updated: number;
}

export interface PluginInstallationsTable {
  /** `ins_...` */
  id: string;
  tenant_id: string;
  plugin_id: string;
  /** The user whose key installed it; the installation token acts on that user's behalf. */
  user_id: string;
  /** JSON arrays: what the tenant granted the plugin when it installed it. */
  permissions: string;
  events: string;
  /** SHA-256 (hex) of the installation token `sk_app_...`; the token itself is never stored. */
  token_hash: string;
  token_last4: string;
  /** The webhook endpoint subscribing the plugin's URL to its events for this tenant. */
  endpoint_id: string;
  installed_at: number;
  /** Null while installed; set when uninstalled (the token stops working at that commit). */
  uninstalled_at: number | null;
  /**
   * JSON arrays: the whole grant an approved revision of the plugin asks for when it is more than
   * this installation holds, until the store accepts it; both null when nothing waits.
   */
  pending_permissions: string | null;
  pending_events: string | null;
}

export type PluginRevisionStatus = 'pending' | 'rejected';

/** A published plugin's one revision: changes awaiting the operator's approval (or rejected). */
export interface PluginRevisionsTable {
  plugin_id: string;
  /** JSON object: the changed manifest fields with their new values. */
  changes: string;
  status: PluginRevisionStatus;
  /** Why the operator rejected it (status `rejected`), else null. */
  rejection_reason: string | null;
  created: number;
  updated: number;
}

export interface PluginRatingsTable {
  tenant_id: string;
  plugin_id: string;
  stars: number;
  comment: string | null;
  created: number;
  updated: number;
}

/** Metered calls per tenant, UTC day (epoch ms of 00:00) and endpoint (`GET /products`). */
export interface UsageDailyTable {
  tenant_id: string;
  day: number;
  endpoint: string;
  calls: number;
  /** Responses with status 4xx or 5xx. */
  errors: number;
  /** Calls refused with 429 by a rate limit or the quota; they do not count against the quota. */
  rejected: number;
  /** Sum of response times, microseconds. */
  duration_us: number;
}

/** Metered calls made with plugin installation tokens, per tenant, UTC day, plugin and endpoint. */
export interface UsageAppsDailyTable {
  tenant_id: string;
  day: number;
  plugin_id: string;
  endpoint: string;
  calls: number;
  errors: number;
  duration_us: number;
}

/** A first-party app's token of one installation, encrypted with a key derived from its secret. */
export interface AppRuntimeTokensTable {
  installation_id: string;
  plugin_id: string;
  tenant_id: string;
  token_ciphertext: string;
  created: number;
}

/** A first-party app's own marks (the Sold-out hider: `hidden:<product id>`). */
export interface AppRuntimeMarksTable {
  plugin_id: string;
  tenant_id: string;
  mark: string;
  created: number;
}

/** A console login: only the SHA-256 of the session id is stored; the id lives in the cookie. */
export interface ConsoleSessionsTable {
  id_hash: string;
  tenant_id: string;
  user_id: string;
  created: number;
  last_seen: number;
  /** Absolute end of the session, whatever its activity. */
  expires_at: number;
}

/** Failed logins / signups per hashed email or client address, in a fixed window. */
export interface ConsoleThrottleTable {
  key: string;
  attempts: number;
  window_start: number;
  blocked_until: number | null;
}

/** One AI description generation (`gen_`): who asked, which provider and model wrote it, its cost. */
export interface AiGenerationsTable {
  id: string;
  tenant_id: string;
  /** The stored product it was written for; null for an inline product. */
  product_id: string | null;
  provider: string;
  model: string;
  tone: string;
  length: string;
  /** The language the text is written in. */
  language: string;
  variant: number;
  description: string;
  word_count: number;
  input_tokens: number;
  output_tokens: number;
  /** 1 when the provider stopped at its token limit and the text was cut at a sentence end. */
  truncated: number;
  /** 1 when the text was written to the product's description. */
  saved: number;
  created: number;
}
