// Places an order for a product in stock and pays it: npx tsx examples/place-order.ts [email]
import { CommerceApiError } from '@commerce-platform/client';
import { connect, run } from './connect.js';

run(async () => {
  const email = process.argv[2] ?? 'ada@example.com';
  const commerce = connect();
  const { data } = await commerce.products.list({
    in_stock: true,
    sort: '-price',
    limit: 1,
    expand: 'variants',
  });
  const product = data[0];
  if (product === undefined) throw new Error('No product in stock');
  // A product with options is ordered by variant; one without, by its own id.
  const variant = product.variants?.find((candidate) => candidate.stock > 0);
  const item = product.sku === null ? { variant_id: variant?.id ?? '' } : { product_id: product.id };
  const body = { items: [{ ...item, quantity: 1 }], customer: { email, name: 'Ada Lovelace' } };

  const preview = await commerce.orders.preview(body);
  console.log(`preview: ${product.name}, total ${preview.total} ${preview.currency} (nothing created)`);
  // The client sends an Idempotency-Key with every POST and reuses it on a retry: one order, whatever happens.
  const order = await commerce.orders.create(body);
  console.log(`order ${order.id}: ${order.status}, total ${order.total} ${order.currency}`);
  try {
    await commerce.orders.pay(order.id, { payment_method: 'pm_card_declined' });
  } catch (error) {
    if (!(error instanceof CommerceApiError) || error.code !== 'payment_failed') throw error;
    console.log(`declined card: ${error.status} ${error.code} (request ${error.requestId})`);
  }
  const paid = await commerce.orders.pay(order.id, { payment_method: 'pm_card_visa' });
  console.log(`order ${paid.id}: ${paid.status}, payment ${paid.payment?.id} ${paid.payment?.status}`);
  await commerce.close();
});
