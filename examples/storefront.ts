// A shopper's visit with the store's publishable key, from the catalog to a paid order:
// npx tsx examples/storefront.ts [email]
//
// StorefrontClient (`@commerce-platform/client/storefront`) is the client for a shop's pages: it
// calls only /v1/store/* and uses the global fetch and nothing of Node, so these same calls run
// in a browser, from an origin the publishable key lists (docs/storefront.md).
import { CommerceApiError } from '@commerce-platform/client/storefront';
import { run, storefront } from './connect.js';

run(async () => {
  const email = process.argv[2] ?? 'ada@example.com';
  const shop = storefront();

  // The catalog shows active products only, never a stock count: `available` says what can be bought.
  const { data } = await shop.store.listProducts({ sort: 'price', limit: 50 });
  const product = data.find((candidate) => candidate.available);
  const variant = product?.variants.find((candidate) => candidate.available);
  if (product === undefined || variant === undefined)
    throw new Error('Nothing in the catalog can be bought now');
  console.log(
    `product: ${product.name} (${product.handle}), ${variant.title}, ${variant.price} ${product.currency}`,
  );

  // A cart is priced at every change; what would stop its order is listed in `problems`.
  let cart = await shop.store.createCart({ email, lines: [{ variant_id: variant.id, quantity: 1 }] });
  cart = await shop.store.updateCart(cart.id, {
    shipping_address: {
      line1: '1 Main St',
      city: 'Austin',
      state: 'TX',
      postal_code: '78701',
      country: 'US',
    },
  });
  const rate = cart.shipping_rates[0]; // cheapest first
  if (rate !== undefined) cart = await shop.store.updateCart(cart.id, { shipping_rate_id: rate.id });
  console.log(
    `cart ${cart.id}: subtotal ${cart.subtotal}, shipping ${cart.shipping_total} (${rate?.name ?? 'none'}), ` +
      `tax ${cart.tax_total}, total ${cart.total} ${cart.currency}`,
  );
  if (cart.problems.length > 0) {
    throw new Error(
      `The cart cannot be completed: ${cart.problems.map((problem) => problem.code).join(', ')}`,
    );
  }

  // Completing pays the total the shopper was shown (`expected_total`): a cart that changed since
  // is 409 cart_changed, with the cart as it now stands, and nothing is charged. A declined card
  // leaves the cart open, so the shopper can try another.
  try {
    await shop.store.completeCart(cart.id, {
      payment_method: 'pm_card_declined',
      expected_total: cart.total,
    });
  } catch (error) {
    if (!(error instanceof CommerceApiError) || error.code !== 'payment_failed') throw error;
    const again = await shop.store.getCart(cart.id);
    console.log(`declined card: ${error.status} ${error.code}; cart ${again.id} is ${again.status}`);
  }
  // The client sends an Idempotency-Key with the completion and reuses it on a retry: one order.
  const order = await shop.store.completeCart(cart.id, {
    payment_method: 'pm_card_visa',
    expected_total: cart.total,
  });
  console.log(
    `order ${order.id}: ${order.status}, total ${order.total} ${order.currency}, from cart ${order.cart_id}`,
  );
});
