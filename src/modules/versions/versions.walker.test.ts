import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { VersionRegistry } from './versions.registry.js';
import { eventObjectType, reachableTypes } from './versions.types.js';

/** 2026-03-01 added `sku` to order lines and renamed a product's `title` to `name`. */
const registry = new VersionRegistry([
  { version: '2026-01-01', release: 'v1', changelog: [], changes: [] },
  {
    version: '2026-03-01',
    release: 'v2',
    changelog: [],
    changes: [
      {
        description: 'Order lines gain `sku`; products call `title` `name`.',
        toPrevious: {
          order_item: ({ sku: _sku, ...rest }) => rest,
          product: ({ name, ...rest }) => ({ ...rest, title: name }),
        },
        storedFromPrevious: {
          product: (product) => {
            if (!('title' in product)) return product;
            const { title, ...rest } = product;
            return { ...rest, name: title };
          },
        },
      },
    ],
  },
]);

const ORDER = { id: 'ord_1', items: [{ name: 'Mug', sku: 'MUG' }], customer: { email: 'a@example.com' } };

describe('version walker', () => {
  it('reaches an order line wherever an order is: alone, in an export, in an event', () => {
    assert.deepEqual(registry.render('order', ORDER, '2026-01-01'), {
      ...ORDER,
      items: [{ name: 'Mug' }],
    });
    const exported = {
      object: 'customer_export',
      customer: { id: 'cus_1' },
      orders: [ORDER, ORDER],
      events: [],
    };
    const rendered = registry.render('customer_export', exported, '2026-01-01') as typeof exported;
    assert.deepEqual(
      rendered.orders.map((order) => order.items),
      [[{ name: 'Mug' }], [{ name: 'Mug' }]],
    );
    const event = { id: 'evt_1', type: 'order.created', data: { object: ORDER } };
    assert.deepEqual(registry.render('event', event, '2026-01-01'), {
      ...event,
      data: { object: { ...ORDER, items: [{ name: 'Mug' }] } },
    });
  });

  it("reads an event's object type from the event type", () => {
    const event = { id: 'evt_2', type: 'product.updated', data: { object: { id: 'prod_1', name: 'Lamp' } } };
    assert.deepEqual(registry.render('event', event, '2026-01-01'), {
      ...event,
      data: { object: { id: 'prod_1', title: 'Lamp' } },
    });
    const exported = {
      customer: {},
      orders: [],
      events: [{ id: 'evt_2', type: 'product.updated', object: { name: 'Lamp' } }],
    };
    assert.deepEqual((registry.render('customer_export', exported, '2026-01-01') as typeof exported).events, [
      { id: 'evt_2', type: 'product.updated', object: { title: 'Lamp' } },
    ]);
    assert.equal(eventObjectType('app.installed'), 'app_installation');
    assert.equal(eventObjectType('refund.created'), 'refund');
  });

  it('leaves the latest version, other types and the input itself alone', () => {
    const input = structuredClone(ORDER);
    assert.equal(registry.render('order', input, '2026-03-01'), input);
    assert.deepEqual(registry.render('discount', { sku: 'x', name: 'y' }, '2026-01-01'), {
      sku: 'x',
      name: 'y',
    });
    registry.render('order', input, '2026-01-01');
    assert.deepEqual(input, ORDER);
  });

  it('brings a stored object to the latest shape, nested ones included', () => {
    assert.deepEqual(registry.upgradeStored('product', { id: 'prod_1', title: 'Lamp' }), {
      id: 'prod_1',
      name: 'Lamp',
    });
    assert.deepEqual(registry.upgradeStored('product', { id: 'prod_1', name: 'Lamp' }), {
      id: 'prod_1',
      name: 'Lamp',
    });
  });

  it('says a type differs when a later version changes it or a type it holds', () => {
    assert.equal(registry.differs('order', '2026-01-01'), true);
    assert.equal(registry.differs('customer_export', '2026-01-01'), true);
    assert.equal(registry.differs('event', '2026-01-01'), true);
    assert.equal(registry.differs('discount', '2026-01-01'), false);
    assert.equal(registry.differs('order', '2026-03-01'), false);
    assert.deepEqual([...(reachableTypes('order') ?? [])].sort(), [
      'order',
      'order_customer',
      'order_item',
      'refund',
    ]);
    assert.equal(reachableTypes('event'), undefined);
  });
});
