// Every product of a category, page by page: npx tsx examples/list-products.ts [category]
import { connect, run } from './connect.js';

run(async () => {
  const category = process.argv[2] ?? 'shoes';
  const commerce = connect();
  let count = 0;
  // `for await` follows each page's next_cursor until the last page; `await` alone gives one page.
  for await (const product of commerce.products.list({ category, limit: 5, sort: 'name' })) {
    const price = `${(product.price / 100).toFixed(2)} ${product.currency}`;
    console.log(`${product.id}  ${product.name.padEnd(28)} ${price.padStart(12)}  stock ${product.stock}`);
    count += 1;
  }
  console.log(`${count} product(s) in "${category}"`);
  await commerce.close();
});
