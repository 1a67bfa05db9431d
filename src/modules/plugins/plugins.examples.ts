/**
 * What the plugin routes answer, for the OpenAPI document: a store's own stock-sync app (in the
 * marketplace, installed and rated by the store), the store it is installed in, and a delivery to
 * it. src/http/openapi-document.test.ts checks each example against its schema.
 */

const INSTALLED_AT = '2026-11-05T13:48:09.733Z';

export const PLUGIN_EXAMPLE = {
  id: 'plg_FPECyw0wQoVnKyEBdlHyWdK2',
  name: 'Stock Sync',
  slug: 'stock-sync',
  description: 'Keeps stock levels in step with your warehouse system.',
  category: 'inventory',
  author: 'Northwind Outfitters',
  installs: 214,
  rating: 4.7,
  rating_count: 58,
  installed: true,
  permissions: ['read:products', 'write:products'],
  events: ['product.updated', 'product.outofstock'],
  installation: {
    id: 'ins_0vU6ZE7aoxDJ2WuQCTZYESp9',
    installed_at: INSTALLED_AT,
    granted_permissions: ['read:products', 'write:products'],
    granted_events: ['product.updated', 'product.outofstock'],
    pending_permissions: null,
  },
  status: 'published',
  homepage_url: 'https://apps.example.com/stock-sync',
  first_party: false,
  owned: true,
  my_rating: 5,
  webhook_url: 'https://apps.example.com/hooks/commerce',
  rejection_reason: null,
  pending_revision: {
    status: 'pending',
    changes: {
      description: 'Keeps stock levels and prices in step with your warehouse system.',
      webhook_url: 'https://apps.example.com/hooks/v2/commerce',
    },
    rejection_reason: null,
    created: '2026-12-02T08:12:40.517Z',
    updated: '2026-12-02T08:12:40.517Z',
  },
};

/** A published plugin's revision awaiting the operator, as its publisher sees it. */
export const PLUGIN_REVISION_EXAMPLE = PLUGIN_EXAMPLE.pending_revision;

/** The answer that publishes it (`POST /plugins`): a draft, with its signing secret, shown once. */
export const NEW_PLUGIN_EXAMPLE = {
  ...PLUGIN_EXAMPLE,
  installs: 0,
  rating: 0,
  rating_count: 0,
  installed: false,
  installation: null,
  status: 'draft',
  my_rating: null,
  pending_revision: null,
  secret: 'whsec_1994v9kGmrXISU7m3U9GHLBb62RdmJ5VaBG4X/w32iY=',
};

export const RATING_EXAMPLE = {
  plugin_id: PLUGIN_EXAMPLE.id,
  stars: 5,
  comment: 'Set up in minutes; stock has matched the warehouse ever since.',
  created: '2026-11-09T17:21:55.160Z',
  updated: '2026-11-09T17:21:55.160Z',
};

export const PLUGIN_INSTALLATION_EXAMPLE = {
  id: 'ins_0vU6ZE7aoxDJ2WuQCTZYESp9',
  tenant_id: 'ten_zxhCY4hnvnD7uaGOkWU8LrY1',
  store_name: 'Northwind Outfitters',
  installed_at: INSTALLED_AT,
};

export const PLUGIN_DELIVERY_EXAMPLE = {
  id: 'del_aNl5c1mIMO1FWFHKWhiT6SgF',
  time: '2026-11-26T09:30:13.102Z',
  event: 'product.updated',
  event_id: 'evt_fJspZOQH1cFTay9gwVI61KOC',
  endpoint: '/hooks/commerce',
  url: 'https://apps.example.com/hooks/commerce',
  response: '200 OK',
  response_status: 200,
  response_body: '',
  duration: 112,
  attempt: 1,
  status: 'succeeded',
  next_retry_at: null,
  tenant_id: 'ten_zxhCY4hnvnD7uaGOkWU8LrY1',
  installation_id: 'ins_0vU6ZE7aoxDJ2WuQCTZYESp9',
};
