import type { components } from '@commerce-platform/client/storefront';

/** The API's shapes the shop reads, from the client's generated types. */
type Schemas = components['schemas'];

export type Product = Schemas['StoreProduct'];
export type Variant = Schemas['StoreVariant'];
export type Cart = Schemas['Cart'];
export type CartLine = Cart['lines'][number];
export type CartProblem = Cart['problems'][number];
export type Address = Schemas['Address'];
export type Customer = Schemas['StoreCustomer'];
export type StoreOrder = Schemas['StoreOrder'];
export type Order = Schemas['Order'];
