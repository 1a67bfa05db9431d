import { type Static, Type } from 'typebox';
import { LINE_OR_EMPTY_PATTERN, LINE_PATTERN } from '../../http/schemas.js';

/** A postal address: a customer's, and the shipping address an order keeps a copy of. */

/** One line of text, not blank, of at most `maxLength` characters. */
const Line = (maxLength: number) => Type.String({ minLength: 1, maxLength, pattern: LINE_PATTERN });
/** One line of text, possibly empty. */
const OptionalLine = (maxLength: number) => Type.String({ maxLength, pattern: LINE_OR_EMPTY_PATTERN });

export const ADDRESS_EXAMPLE = {
  name: 'Ada Lovelace',
  line1: '500 Howard St',
  line2: 'Suite 300',
  city: 'San Francisco',
  state: 'CA',
  postal_code: '94105',
  country: 'US',
  phone: '+14155550123',
};

export const AddressSchema = Type.Object(
  {
    name: Type.Optional(Line(200)),
    line1: Line(200),
    line2: Type.Optional(OptionalLine(200)),
    city: Line(100),
    state: Type.Optional(
      Type.String({
        maxLength: 100,
        pattern: LINE_OR_EMPTY_PATTERN,
        description:
          'Where the country’s ISO 3166-2 subdivisions are known (US, CA, DE, ...), the code (`CA`, any case) or the name (`California`), stored as the code; another is 400. Elsewhere text, stored Unicode NFKC-normalised without invisible characters. Blank: absent.',
      }),
    ),
    postal_code: Type.Optional(OptionalLine(20)),
    country: Type.String({ pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2.', examples: ['US'] }),
    phone: Type.Optional(OptionalLine(40)),
  },
  { additionalProperties: false, examples: [ADDRESS_EXAMPLE] },
);
export type Address = Static<typeof AddressSchema>;
