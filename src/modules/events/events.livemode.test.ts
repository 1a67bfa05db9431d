import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestContext, LOGIC_ONLY, type TestContext } from '../../../test/helpers/context.js';
import { eventObjectType } from '../versions/versions.types.js';
import { OWN_MEMBERS, withOwnLivemode } from './events.livemode.js';

type Schema = Record<string, unknown>;

/** `order_item` as the document names its component: `OrderItem`. */
const componentName = (type: string): string =>
  type
    .split('_')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');

const refName = (schema: unknown): string | undefined => {
  const ref = (schema as Schema | undefined)?.$ref;
  return typeof ref === 'string' ? ref.slice(ref.lastIndexOf('/') + 1) : undefined;
};

for (const dialect of LOGIC_ONLY) {
  describe(`an event's nested objects of their own (${dialect})`, () => {
    let ctx: TestContext;
    let schemas: Record<string, Schema>;
    let eventTypes: string[];

    before(async () => {
      ctx = await createTestContext(dialect);
      const doc = (await ctx.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json() as {
        components: { schemas: Record<string, Schema> };
      };
      schemas = doc.components.schemas;
      const event = schemas.Event as { properties: { type: { enum: string[] } } };
      eventTypes = event.properties.type.enum;
    });
    after(() => ctx.close());

    /**
     * What the document says a type's component holds of its own: each member whose schema (or
     * items) is a component with an `id` that declares `livemode`, as only what keyed routes answer
     * does (an import's `errors[]` declare it for their own list, but have no `id`: a row of a file).
     */
    function ownMembersInDocument(type: string): Record<string, string> {
      const component = schemas[componentName(type)];
      assert.ok(component, `no component ${componentName(type)} for ${type}`);
      const found: Record<string, string> = {};
      for (const [name, member] of Object.entries((component.properties as Schema | undefined) ?? {})) {
        const m = member as Schema;
        const candidates = [m, m.items, ...((m.anyOf as unknown[] | undefined) ?? [])];
        for (const candidate of candidates) {
          const target = refName(candidate);
          const properties = target === undefined ? undefined : (schemas[target]?.properties as Schema);
          if (
            target !== undefined &&
            properties !== undefined &&
            'livemode' in properties &&
            'id' in properties
          ) {
            found[name] = snake(target);
          }
        }
      }
      return found;
    }

    const snake = (name: string): string =>
      name.replace(/[A-Z]/g, (c, i: number) => (i ? '_' : '') + c.toLowerCase());

    it('names what the OpenAPI document shows, for every event object that has a component', () => {
      const types = new Set<string>();
      for (const eventType of eventTypes) {
        const type = eventObjectType(eventType);
        if (type !== undefined && schemas[componentName(type)] !== undefined) types.add(type);
      }
      // And the types the table names within them, in turn.
      for (const members of Object.values(OWN_MEMBERS))
        for (const type of Object.values(members)) types.add(type);
      assert.ok(types.has('order') && types.has('product'), [...types].join());
      for (const type of types) {
        assert.deepEqual(OWN_MEMBERS[type] ?? {}, ownMembersInDocument(type), type);
      }
    });

    it('marks the objects of their own at any depth, keeps a mode one carries, leaves the rest', () => {
      const order = {
        id: 'ord_1',
        items: [{ id: 'li_1' }],
        refunds: [{ id: 're_1' }, { id: 're_2', livemode: true }],
        fulfillments: [],
        returns: [{ id: 'ret_1', items: [{ variant_id: 'var_1' }] }],
        payment: { status: 'paid' },
      };
      const out = withOwnLivemode('order', order, false);
      assert.deepEqual(out, {
        ...order,
        refunds: [
          { id: 're_1', livemode: false },
          { id: 're_2', livemode: true },
        ],
        returns: [{ id: 'ret_1', items: [{ variant_id: 'var_1' }], livemode: false }],
      });
      assert.equal(order.refunds[0] && 'livemode' in order.refunds[0], false, 'the input is not changed');
      assert.deepEqual(withOwnLivemode('customer', { id: 'cus_1' }, false), { id: 'cus_1' });
    });
  });
}
