import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clientName } from './operation-names.js';

describe("the TypeScript client's names of operations", () => {
  it('take the namespace from the path and the method from the operationId without its noun', () => {
    const cases: [string, string, string, string][] = [
      ['/v1/products', 'listProducts', 'Products', 'products.list'],
      ['/v1/products/{id}/variants/{variant_id}', 'getVariant', 'Products', 'products.getVariant'],
      ['/v1/orders/{id}/refunds', 'listOrderRefunds', 'Orders', 'orders.listRefunds'],
      ['/v1/orders/{id}/refunds', 'createRefund', 'Orders', 'orders.createRefund'],
      ['/v1/api-keys/:id/roll', 'rollApiKey', 'API keys', 'apiKeys.roll'],
      ['/v1/shipping-rates', 'listShippingRates', 'Pricing', 'shippingRates.list'],
      ['/v1/webhooks', 'listWebhookEndpoints', 'Webhooks', 'webhooks.list'],
      ['/v1/webhooks/{id}/rotate-secret', 'rotateWebhookSecret', 'Webhooks', 'webhooks.rotateSecret'],
      ['/v1/exports/products', 'exportProducts', 'Imports and exports', 'exports.products'],
      ['/v1/wallet/balance', 'getWalletBalance', 'Wallet', 'wallet.getBalance'],
      ['/v1/usage', 'getUsage', 'Usage', 'usage.get'],
      ['/healthz', 'checkLiveness', 'Health', 'health.checkLiveness'],
    ];
    for (const [path, operationId, tag, expected] of cases) {
      const { namespace, method } = clientName(path, operationId, tag);
      assert.equal(`${namespace}.${method}`, expected, operationId);
    }
  });
});
