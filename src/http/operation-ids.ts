/**
 * The `operationId` of every operation of the OpenAPI document, by method and route: the names
 * generated clients call (`listProducts`, `createOrder`). They are part of the API: a name, once
 * published, is not changed. route-hooks.ts gives each route its name and refuses a documented
 * route that has none here.
 */
export const OPERATION_IDS: Readonly<Record<string, string>> = {
  'GET /healthz': 'checkLiveness',
  'GET /readyz': 'checkReadiness',

  'POST /v1/ai/describe': 'describeProduct',
  'POST /v1/ai/generate-description': 'generateProductDescription',

  'GET /v1/analytics': 'getAnalytics',
  'GET /v1/analytics/reports/customers': 'getCustomersReport',
  'GET /v1/analytics/reports/products': 'getProductsReport',
  'GET /v1/analytics/reports/sales': 'getSalesReport',

  'GET /v1/api-keys': 'listApiKeys',
  'POST /v1/api-keys': 'createApiKey',
  'GET /v1/api-keys/:id': 'getApiKey',
  'DELETE /v1/api-keys/:id': 'revokeApiKey',
  'POST /v1/api-keys/:id/roll': 'rollApiKey',

  'GET /v1/customers': 'listCustomers',
  'POST /v1/customers': 'createCustomer',
  'GET /v1/customers/:id': 'getCustomer',
  'PATCH /v1/customers/:id': 'updateCustomer',
  'DELETE /v1/customers/:id': 'deleteCustomer',
  'GET /v1/customers/:id/export': 'exportCustomerData',
  'GET /v1/customers/:id/orders': 'listCustomerOrders',
  'POST /v1/customers/:id/redact': 'redactCustomer',

  'GET /v1/discounts': 'listDiscounts',
  'POST /v1/discounts': 'createDiscount',
  'GET /v1/discounts/:id': 'getDiscount',
  'PATCH /v1/discounts/:id': 'updateDiscount',
  'DELETE /v1/discounts/:id': 'deleteDiscount',

  'GET /v1/events': 'listEvents',
  'GET /v1/events/:id': 'getEvent',
  'GET /v1/events/:id/deliveries': 'listEventDeliveries',

  'GET /v1/exports/customers': 'exportCustomers',
  'GET /v1/exports/orders': 'exportOrders',
  'GET /v1/exports/products': 'exportProducts',

  'GET /v1/imports': 'listImports',
  'POST /v1/imports': 'createImport',
  'GET /v1/imports/:id': 'getImport',
  'GET /v1/imports/:id/errors': 'listImportErrors',

  'GET /v1/orders': 'listOrders',
  'POST /v1/orders': 'createOrder',
  'POST /v1/orders/preview': 'previewOrder',
  'GET /v1/orders/:id': 'getOrder',
  'POST /v1/orders/:id/pay': 'payOrder',
  'POST /v1/orders/:id/ship': 'shipOrder',
  'POST /v1/orders/:id/deliver': 'deliverOrder',
  'POST /v1/orders/:id/cancel': 'cancelOrder',
  'POST /v1/orders/:id/refund': 'refundOrder',
  'GET /v1/orders/:id/refunds': 'listOrderRefunds',
  'POST /v1/orders/:id/refunds': 'createRefund',

  'GET /v1/plugins': 'listPlugins',
  'POST /v1/plugins': 'createPlugin',
  'GET /v1/plugins/:id': 'getPlugin',
  'PATCH /v1/plugins/:id': 'updatePlugin',
  'POST /v1/plugins/:id/submit': 'submitPlugin',
  'GET /v1/plugins/:id/installations': 'listPluginInstallations',
  'GET /v1/plugins/:id/deliveries': 'listPluginDeliveries',
  'POST /v1/plugins/:id/install': 'installPlugin',
  'POST /v1/plugins/:id/install/accept': 'acceptPluginInstallation',
  'DELETE /v1/plugins/:id/install': 'uninstallPlugin',
  'POST /v1/plugins/:id/ratings': 'ratePlugin',

  'GET /v1/products': 'listProducts',
  'POST /v1/products': 'createProduct',
  'GET /v1/products/:id': 'getProduct',
  'PATCH /v1/products/:id': 'updateProduct',
  'DELETE /v1/products/:id': 'deleteProduct',
  'GET /v1/products/:id/variants': 'listVariants',
  'POST /v1/products/:id/variants': 'createVariant',
  'GET /v1/products/:id/variants/:variant_id': 'getVariant',
  'PATCH /v1/products/:id/variants/:variant_id': 'updateVariant',
  'DELETE /v1/products/:id/variants/:variant_id': 'deleteVariant',

  'GET /v1/shipping-rates': 'listShippingRates',
  'POST /v1/shipping-rates': 'createShippingRate',
  'GET /v1/shipping-rates/:id': 'getShippingRate',
  'PATCH /v1/shipping-rates/:id': 'updateShippingRate',
  'DELETE /v1/shipping-rates/:id': 'deleteShippingRate',

  'GET /v1/tax-rates': 'listTaxRates',
  'POST /v1/tax-rates': 'createTaxRate',
  'GET /v1/tax-rates/:id': 'getTaxRate',
  'PATCH /v1/tax-rates/:id': 'updateTaxRate',
  'DELETE /v1/tax-rates/:id': 'deleteTaxRate',

  'GET /v1/usage': 'getUsage',
  'GET /v1/users/me': 'getCurrentUser',
  'GET /v1/versions': 'listVersions',
  'POST /v1/versions/upgrade': 'upgradeVersion',

  'GET /v1/wallet/balance': 'getWalletBalance',
  'GET /v1/wallet/balances': 'listWalletBalances',
  'GET /v1/wallet/transactions': 'listWalletTransactions',
  'POST /v1/wallet/transfer': 'createTransfer',
  'GET /v1/wallet/transfers': 'listTransfers',
  'GET /v1/wallet/transfers/:id': 'getTransfer',

  'GET /v1/webhooks': 'listWebhookEndpoints',
  'POST /v1/webhooks': 'createWebhookEndpoint',
  'GET /v1/webhooks/:id': 'getWebhookEndpoint',
  'PATCH /v1/webhooks/:id': 'updateWebhookEndpoint',
  'DELETE /v1/webhooks/:id': 'deleteWebhookEndpoint',
  'POST /v1/webhooks/:id/rotate-secret': 'rotateWebhookSecret',
  'POST /v1/webhooks/:id/test': 'testWebhookEndpoint',
  'GET /v1/webhooks/:id/deliveries': 'listWebhookDeliveries',
  'POST /v1/webhooks/:id/deliveries/:delivery_id/retry': 'retryWebhookDelivery',
};
