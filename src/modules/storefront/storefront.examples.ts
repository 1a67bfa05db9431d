/**
 * What the storefront's catalog routes answer, for the OpenAPI document: the logo T-shirt of the
 * products module's examples as a shopper sees it (two of its variants), and the shipping rates a
 * cart to the US may choose. src/http/openapi-document.test.ts checks each against its schema.
 */

export const STORE_PRODUCT_EXAMPLE = {
  id: 'prod_UJCge5s3ZsDvyd79x11NeKpp',
  handle: 'logo-t-shirt',
  name: 'Logo T-shirt',
  description: 'Heavyweight cotton with the logo on the chest.',
  category: 'apparel',
  images: ['https://cdn.example.com/products/logo-t-shirt.jpg'],
  media: [{ url: 'https://cdn.example.com/products/logo-t-shirt.jpg', alt: 'The black logo T-shirt, front' }],
  tags: ['cotton'],
  options: [
    { name: 'Size', values: ['S', 'M'] },
    { name: 'Color', values: ['Black'] },
  ],
  price: 2500,
  price_max: 2500,
  currency: 'USD',
  available: true,
  variants: [
    {
      id: 'var_Qn4tLx8RcW2mZp6Vb1Hd9Ks3',
      title: 'S / Black',
      options: { Size: 'S', Color: 'Black' },
      price: 2500,
      compare_at_price: 3000,
      image: null,
      available: false,
    },
    {
      id: 'var_RzZ3unAXTTuVdMLmj0ZuOFd7',
      title: 'M / Black',
      options: { Size: 'M', Color: 'Black' },
      price: 2500,
      compare_at_price: 3000,
      image: 'https://cdn.example.com/products/logo-t-shirt-black.jpg',
      available: true,
    },
  ],
  variants_has_more: false,
};

export const STORE_SHIPPING_RATE_EXAMPLE = {
  id: 'shr_PA7TCIzxZZAA2dpyxCT2F309',
  name: 'Standard',
  amount: 599,
  currency: 'USD',
  free_over: 5000,
  min_weight_grams: null,
  max_weight_grams: 4999,
};
