import { type Static, Type } from 'typebox';
import { EnvelopeSchema, PageQuery } from '../../http/pagination.js';
import { LINE_PATTERN, Nullable, Timestamp } from '../../http/schemas.js';
import { ADDRESS_EXAMPLE, AddressSchema } from '../customers/index.js';

const LOCATION_ID = 'loc_7Hq2Lx9Vb4Nc8Zt1Mk6Pw3Rs';
const VARIANT_ID = 'var_2bQx7ZpW2bX9sT2uV7wY3cE5';
/** The most units a location may hold of one variant. */
export const MAX_UNITS = 1_000_000_000;

export const LocationSchema = Type.Object(
  {
    id: Type.String({ examples: [LOCATION_ID] }),
    name: Type.String(),
    address: Nullable(AddressSchema),
    fulfills_online_orders: Type.Boolean({
      description: 'Its available units count in variants’ `stock`, and orders take units from it.',
    }),
    default: Type.Boolean({
      description:
        'The store’s default location: made with the store, it holds the stock a variant’s `stock` sets and always fulfils online orders.',
    }),
    created: Timestamp,
    updated: Timestamp,
  },
  {
    examples: [
      {
        id: LOCATION_ID,
        name: 'Warehouse',
        address: ADDRESS_EXAMPLE,
        fulfills_online_orders: true,
        default: false,
        created: '2027-01-20T10:15:00.000Z',
        updated: '2027-01-20T10:15:00.000Z',
      },
    ],
  },
);
export type LocationObject = Static<typeof LocationSchema>;
export const LocationListSchema = EnvelopeSchema(LocationSchema);

const Name = Type.String({ minLength: 1, maxLength: 100, pattern: LINE_PATTERN, examples: ['Warehouse'] });

export const CreateLocationBody = Type.Object(
  {
    name: Name,
    address: Type.Optional(Nullable(AddressSchema)),
    fulfills_online_orders: Type.Optional(Type.Boolean({ default: true })),
  },
  { additionalProperties: false, examples: [{ name: 'Warehouse', fulfills_online_orders: true }] },
);
export type CreateLocationBody = Static<typeof CreateLocationBody>;

export const UpdateLocationBody = Type.Object(
  {
    name: Type.Optional(Name),
    address: Type.Optional(Nullable(AddressSchema)),
    fulfills_online_orders: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, examples: [{ fulfills_online_orders: false }] },
);
export type UpdateLocationBody = Static<typeof UpdateLocationBody>;

export const LocationIdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
export const LocationListQuery = Type.Object({ ...PageQuery }, { additionalProperties: false });

export const StockLevelSchema = Type.Object(
  {
    location_id: Type.String({ examples: [LOCATION_ID] }),
    on_hand: Type.Integer({ description: 'Units at the location.' }),
    committed: Type.Integer({ description: 'Units of them orders (and cart holds) took, not shipped yet.' }),
    available: Type.Integer({ description: '`on_hand - committed`: what orders may still take.' }),
  },
  { examples: [{ location_id: LOCATION_ID, on_hand: 12, committed: 2, available: 10 }] },
);
export type StockLevelObject = Static<typeof StockLevelSchema>;
export const StockLevelListSchema = EnvelopeSchema(StockLevelSchema);
export const VariantInventoryParams = Type.Object({
  id: Type.String({ maxLength: 64 }),
  variant_id: Type.String({ maxLength: 64 }),
});

export const AdjustmentSchema = Type.Object(
  {
    id: Type.String({ examples: ['adj_4kP9sT2uV7wY3cE5bQx7ZpW2'] }),
    variant_id: Type.String({ examples: [VARIANT_ID] }),
    product_id: Type.String(),
    location_id: Type.String({ examples: [LOCATION_ID] }),
    delta: Type.Integer({ description: 'Units on hand after less before.' }),
    on_hand: Type.Integer({ description: 'Units on hand at the location after it.' }),
    reason: Nullable(Type.String()),
    created: Timestamp,
  },
  {
    examples: [
      {
        id: 'adj_4kP9sT2uV7wY3cE5bQx7ZpW2',
        variant_id: VARIANT_ID,
        product_id: 'prod_8Zt1Mk6Pw3Rs7Hq2Lx9Vb4Nc',
        location_id: LOCATION_ID,
        delta: 5,
        on_hand: 17,
        reason: 'received',
        created: '2027-01-20T10:15:00.000Z',
      },
    ],
  },
);
export type AdjustmentObject = Static<typeof AdjustmentSchema>;
export const AdjustmentListSchema = EnvelopeSchema(AdjustmentSchema);

export const CreateAdjustmentBody = Type.Object(
  {
    variant_id: Type.String({ maxLength: 64 }),
    location_id: Type.String({ maxLength: 64 }),
    delta: Type.Optional(
      Type.Integer({
        minimum: -MAX_UNITS,
        maximum: MAX_UNITS,
        description: 'Units to add (or remove, negative) on hand; give `delta` or `set`.',
      }),
    ),
    set: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_UNITS,
        description: 'Units on hand after; give `delta` or `set`.',
      }),
    ),
    reason: Type.Optional(Type.String({ minLength: 1, maxLength: 200, pattern: LINE_PATTERN })),
  },
  {
    additionalProperties: false,
    examples: [{ variant_id: VARIANT_ID, location_id: LOCATION_ID, delta: 5, reason: 'received' }],
  },
);
export type CreateAdjustmentBody = Static<typeof CreateAdjustmentBody>;

export const AdjustmentListQuery = Type.Object(
  {
    ...PageQuery,
    variant_id: Type.Optional(Type.String({ maxLength: 64 })),
    location_id: Type.Optional(Type.String({ maxLength: 64 })),
  },
  { additionalProperties: false },
);
export type AdjustmentListQuery = Static<typeof AdjustmentListQuery>;
