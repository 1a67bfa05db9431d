import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { canBuy, choose, initialSelection, variantFor } from '../../../shop/src/variants.js';
import type { Product } from '../../../shop/src/types.js';

/**
 * The shop's option pickers (shop/src/variants.ts): which variant a choice names, which values
 * are greyed out with the others as chosen, and where a click on a greyed-out value goes.
 */

function tee(stock: Record<string, number>): Product {
  const sizes = ['S', 'M', 'XL'];
  const colours = ['Black', 'Sage'];
  return {
    id: 'prod_tee',
    handle: 'tee',
    name: 'Tee',
    description: null,
    category: 'apparel',
    images: [],
    media: [],
    tags: [],
    options: [
      { name: 'Size', values: sizes },
      { name: 'Color', values: colours },
    ],
    price: 2400,
    price_max: 2400,
    currency: 'USD',
    available: true,
    variants_has_more: false,
    variants: sizes.flatMap((Size) =>
      colours.map((Color) => ({
        id: `var_${Size}_${Color}`,
        title: `${Size} / ${Color}`,
        options: { Size, Color },
        price: 2400,
        compare_at_price: null,
        image: null,
        available: (stock[`${Size}/${Color}`] ?? 1) > 0,
      })),
    ),
  };
}

describe('the shop’s option pickers', () => {
  it('starts on the first combination in stock, and names the variant of a whole choice', () => {
    const product = tee({ 'S/Black': 0 });
    assert.deepEqual(initialSelection(product), { Size: 'S', Color: 'Sage' });
    assert.equal(variantFor(product, { Size: 'XL', Color: 'Black' })?.id, 'var_XL_Black');
    assert.equal(variantFor(product, { Size: 'XL' }), undefined);
  });

  it('greys out a value no variant in stock has with the others as chosen', () => {
    const product = tee({ 'XL/Sage': 0 });
    assert.equal(canBuy(product, { Size: 'XL', Color: 'Black' }, 'Color', 'Sage'), false);
    assert.equal(canBuy(product, { Size: 'M', Color: 'Black' }, 'Color', 'Sage'), true);
    assert.equal(canBuy(product, { Size: 'S', Color: 'Sage' }, 'Size', 'XL'), false);
    assert.equal(canBuy(product, { Size: 'S', Color: 'Black' }, 'Size', 'XL'), true);
  });

  it('moves the other options to a combination in stock when a greyed-out value is chosen', () => {
    const product = tee({ 'XL/Sage': 0 });
    assert.deepEqual(choose(product, { Size: 'S', Color: 'Sage' }, 'Size', 'XL'), {
      Size: 'XL',
      Color: 'Black',
    });
    assert.deepEqual(choose(product, { Size: 'S', Color: 'Sage' }, 'Size', 'M'), {
      Size: 'M',
      Color: 'Sage',
    });
    // Sold out in every colour: the choice stays, and the page says it is sold out.
    const soldOut = tee({ 'XL/Sage': 0, 'XL/Black': 0 });
    assert.deepEqual(choose(soldOut, { Size: 'S', Color: 'Sage' }, 'Size', 'XL'), {
      Size: 'XL',
      Color: 'Sage',
    });
  });

  it('takes a product without options as its one variant', () => {
    const product: Product = {
      ...tee({}),
      options: [],
      variants: [
        {
          id: 'var_d',
          title: 'Default',
          options: {},
          price: 900,
          compare_at_price: null,
          image: null,
          available: true,
        },
      ],
    };
    assert.deepEqual(initialSelection(product), {});
    assert.equal(variantFor(product, {})?.id, 'var_d');
  });
});
