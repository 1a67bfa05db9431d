import { type Static, Type } from 'typebox';
import { LINE_PATTERN, Nullable, TEXT_PATTERN, Timestamp } from '../../http/schemas.js';
import { MAX_OPTION_VALUES, MAX_OPTIONS, OptionSchema } from '../products/index.js';
import { type Length, LENGTHS, type Tone, TONES } from './ai.provider.js';

const ToneSchema = Type.Unsafe<Tone>({
  type: 'string',
  enum: [...TONES],
  description: '`professional` (default), `friendly`, `luxury`, `playful` or `technical`.',
});

const LengthSchema = Type.Unsafe<Length>({
  type: 'string',
  enum: [...LENGTHS],
  description: '`short` (about 30-60 words), `medium` (default, 80-130) or `long` (180-260, in paragraphs).',
});

const ProductFactsBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200, pattern: LINE_PATTERN }),
    category: Type.Optional(Type.String({ minLength: 1, maxLength: 100, pattern: LINE_PATTERN })),
    attributes: Type.Optional(
      Type.Unsafe<Record<string, string>>({
        type: 'object',
        additionalProperties: { type: 'string', maxLength: 500, pattern: TEXT_PATTERN },
        propertyNames: { minLength: 1, maxLength: 100, pattern: LINE_PATTERN },
        maxProperties: 50,
        description: 'A flat map of string values, e.g. {"color": "black", "weight": "1.2 kg"}.',
      }),
    ),
    features: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 200, pattern: LINE_PATTERN }), {
        maxItems: 20,
        description: 'Short phrases, e.g. "adjustable arm", "keeps drinks cold for 24 hours".',
      }),
    ),
    options: Type.Optional(
      Type.Array(OptionSchema, {
        maxItems: MAX_OPTIONS,
        description:
          `The choices it is sold in, as a stored product's \`options\`: up to ${MAX_OPTIONS}, each with 1 to ` +
          `${MAX_OPTION_VALUES} values, names and values unique (case-insensitively). All are named as given ` +
          '(an inline product has no variants whose stock could rule a value out).',
        examples: [
          [
            { name: 'Size', values: ['S', 'M', 'L'] },
            { name: 'Color', values: ['Black', 'White'] },
          ],
        ],
      }),
    ),
  },
  { additionalProperties: false, description: 'A product that is not stored (yet).' },
);

export const GenerateDescriptionBody = Type.Object(
  {
    product_id: Type.Optional(
      Type.String({ minLength: 1, maxLength: 64, description: "A stored product of the caller's tenant." }),
    ),
    product: Type.Optional(ProductFactsBody),
    tone: Type.Optional(ToneSchema),
    length: Type.Optional(LengthSchema),
    language: Type.Optional(
      Type.String({
        minLength: 2,
        maxLength: 35,
        pattern: '^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$',
        description:
          'A BCP 47 language tag, default `en`. The `builtin` provider writes English whatever is asked ' +
          '(the response says `en`); the `openai` provider writes the language asked for.',
        examples: ['en', 'de-CH'],
      }),
    ),
    keywords: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 60, pattern: LINE_PATTERN }), {
        maxItems: 10,
        uniqueItems: true,
        description:
          'Words or phrases the text must contain, word for word. With the built-in writer, more than the ' +
          'length has room for is a 400 naming `keywords`.',
      }),
    ),
    save: Type.Optional(
      Type.Boolean({
        description:
          "Write the text to the product's `description` (emits `product.updated`). Only with " +
          '`product_id`; needs the `write:products` permission too.',
      }),
    ),
    variant: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 1_000_000,
        description:
          '0 (default) for the usual wording; another number asks for another wording of the same input.',
      }),
    ),
  },
  {
    additionalProperties: false,
    description: 'Give exactly one of `product_id` and `product`.',
    examples: [
      {
        product_id: 'prod_NUM03sM4JHrY5j5OPiOa7rZU',
        tone: 'friendly',
        length: 'short',
        keywords: ['rock plate'],
      },
      {
        product: {
          name: 'Trail Runner 3',
          category: 'shoes',
          attributes: { color: 'black' },
          features: ['rock plate', 'grippy lugs'],
        },
        tone: 'technical',
        length: 'medium',
        save: false,
      },
    ],
  },
);
export type GenerateDescriptionBody = Static<typeof GenerateDescriptionBody>;

export const GenerationSchema = Type.Object(
  {
    id: Type.String({ examples: ['gen_7hTq2ZpW2bX9sT2uV7wY3cE5'] }),
    description: Type.String({ description: 'Plain text; paragraphs are separated by a blank line.' }),
    product_id: Nullable(Type.String()),
    tone: Type.String({ enum: [...TONES] }),
    length: Type.String({ enum: [...LENGTHS] }),
    language: Type.String({ description: 'The language the text is written in.' }),
    word_count: Type.Integer(),
    provider: Type.String({ enum: ['builtin', 'openai'] }),
    model: Type.String({ examples: ['builtin-copy-1', 'gpt-4o-mini'] }),
    usage: Type.Object(
      { input_tokens: Type.Integer(), output_tokens: Type.Integer() },
      { description: 'Tokens the model used, as the provider reports them; 0 for `builtin`.' },
    ),
    saved: Type.Boolean({ description: "Whether the text was written to the product's description." }),
    truncated: Type.Boolean({
      description:
        'The provider stopped at its token limit; the text was cut back to its last full sentence.',
    }),
    created: Timestamp,
  },
  {
    examples: [
      {
        id: 'gen_XHZQzVR3OpyBB010W0mQoSBD',
        description:
          "Get ready to fall for the Trail Runner 3. Fans of shoes, this one's for you. It comes in black. If you've been hunting for rock plate, your search might just be over. It's the sort of thing you'll be glad you picked up. Grab yours today. You deserve it!",
        product_id: 'prod_NUM03sM4JHrY5j5OPiOa7rZU',
        tone: 'friendly',
        length: 'short',
        language: 'en',
        word_count: 50,
        provider: 'builtin',
        model: 'builtin-copy-1',
        usage: { input_tokens: 0, output_tokens: 0 },
        saved: false,
        truncated: false,
        created: '2026-11-27T08:09:44.129Z',
      },
    ],
  },
);
export type GenerationObject = Static<typeof GenerationSchema>;
