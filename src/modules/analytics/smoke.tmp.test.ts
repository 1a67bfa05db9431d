import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../../lib/clock.js';
import { client, createTenant, createTestContext, DIALECTS, type TestContext } from '../../../test/helpers/context.js';

for (const dialect of DIALECTS) {
  describe(`smoke (${dialect})`, () => {
    let ctx: TestContext;
    const clock = new ManualClock(Date.parse('2026-03-10T12:00:00.000Z'));
    before(async () => { ctx = await createTestContext(dialect, { clock }); });
    after(() => ctx.close());
    it('works', async () => {
      const t = await createTenant(ctx);
      const api = client(ctx.app, t.apiKey.key);
      const p = await api<{ id: string }>('POST', '/v1/products', { body: { name: 'Mug', price: 1000, stock: 100, category: 'kitchen' } });
      const q = await api<{ id: string }>('POST', '/v1/products', { body: { name: 'Tea', price: 250, stock: 100 } });
      const o = await api<{ id: string }>('POST', '/v1/orders', { body: { items: [{ product_id: p.body.id, quantity: 2 }, { product_id: q.body.id, quantity: 1 }], customer: { email: 'a@x.com', name: 'A' }, payment_method: 'pm_card_visa' } });
      assert.equal(o.status, 201, JSON.stringify(o.body));
      clock.advance(86400000);
      const o2 = await api<{ id: string }>('POST', '/v1/orders', { body: { items: [{ product_id: p.body.id, quantity: 1 }], customer: { email: 'b@x.com' } } });
      await api('POST', `/v1/orders/${o2.body.id}/pay`, { body: { payment_method: 'pm_card_visa' } });
      clock.advance(86400000);
      const r = await api('POST', `/v1/orders/${o.body.id}/refund`, { body: {} });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      const a = await api('GET', '/v1/analytics?interval=week');
      console.log(JSON.stringify(a.body, null, 1));
      for (const name of ['sales', 'products', 'customers']) {
        const rep = await api('GET', `/v1/analytics/reports/${name}?limit=3`);
        console.log(rep.status, JSON.stringify(rep.body));
        const csv = await api('GET', `/v1/analytics/reports/${name}?format=csv&from=2026-03-01`);
        console.log(csv.status, csv.headers['content-type'], csv.headers['content-disposition'], csv.body);
      }
      await ctx.deps.analytics.rebuild();
    });
  });
}
