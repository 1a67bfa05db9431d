import type { Store } from '../../db/store.js';
import { AppError, notFound, validationError } from '../../lib/errors.js';
import { type IdempotentWrite, NO_IDEMPOTENCY } from '../../lib/idempotent-write.js';
import type { Clock } from '../../lib/clock.js';
import { iso } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import type { Principal } from '../../lib/principal.js';
import { MAX_LIMIT } from '../../lib/paging.js';
import { type ProductService, type VariantService, checkOptions } from '../products/index.js';
import { OptionTally } from './ai.facts.js';
import type { DescriptionProvider, ProductFacts } from './ai.provider.js';
import * as repo from './ai.repository.js';
import type { GenerateDescriptionBody, GenerationObject } from './ai.schemas.js';
import { canonicalLanguage, countWords, trimToLastSentence } from './ai.text.js';

/** The longest description a product holds (`description` in products.schemas.ts). */
const MAX_DESCRIPTION_CHARS = 5000;

function present(row: repo.GenerationRow): GenerationObject {
  return {
    id: row.id,
    description: row.description,
    product_id: row.product_id,
    tone: row.tone,
    length: row.length,
    language: row.language,
    word_count: row.word_count,
    provider: row.provider,
    model: row.model,
    usage: { input_tokens: row.input_tokens, output_tokens: row.output_tokens },
    saved: row.saved === 1,
    truncated: row.truncated === 1,
    created: iso(row.created),
  };
}

export type AiService = ReturnType<typeof createAiService>;

export function createAiService(deps: {
  store: Store;
  clock: Clock;
  products: ProductService;
  variants: VariantService;
  provider: DescriptionProvider;
}) {
  const { store, clock, products, variants, provider } = deps;

  /**
   * A stored product's facts. Its options are named as offered (ai.facts.ts): the product object
   * carries its first 100 variants; the rest are read a page at a time, and only while some
   * option value has not yet been seen in stock.
   */
  async function storedFacts(tenantId: string, productId: string): Promise<ProductFacts> {
    const product = await products.get(tenantId, productId);
    const shown = product.variants ?? [];
    const tally = new OptionTally(product.options);
    tally.add(shown);
    if (product.options.length > 0 && product.variants_has_more === true && !tally.complete()) {
      let page = await variants.list(tenantId, productId, { limit: MAX_LIMIT, offset: shown.length });
      for (;;) {
        tally.add(page.data);
        if (page.next_cursor === null || tally.complete()) break;
        page = await variants.list(tenantId, productId, { limit: MAX_LIMIT, cursor: page.next_cursor });
      }
    }
    return {
      name: product.name,
      category: product.category,
      attributes: product.attributes,
      features: [],
      options: tally.offered(),
    };
  }

  return {
    /**
     * Writes a description of a stored product (`product_id`) or an inline one (`product`), records
     * the generation and, with `save`, writes the text to the product through the products service
     * (so `updated` moves and `product.updated` is emitted with the change). Everything that can be
     * refused is checked before the provider is paid for.
     */
    async generate(
      principal: Principal,
      input: GenerateDescriptionBody,
      idempotent: IdempotentWrite = NO_IDEMPOTENCY,
    ): Promise<GenerationObject> {
      if (idempotent.committed !== null) {
        // The provider was paid for this key already: answer with what it wrote.
        const done = await repo.findGeneration(store.db, principal.tenant.id, idempotent.committed);
        if (!done) throw notFound('generation');
        return present(done);
      }
      const { product_id: productId, product: inline } = input;
      if (productId === undefined && inline === undefined) {
        throw validationError('product_id', 'or product is required');
      }
      if (productId !== undefined && inline !== undefined) {
        throw validationError('product', 'must not be given together with product_id');
      }
      const save = input.save === true;
      if (save && productId === undefined) {
        throw validationError('save', 'needs product_id: only a stored product can be saved to');
      }
      if (save && !principal.key.permissions.has('write:products')) {
        throw new AppError(
          'insufficient_permissions',
          'Saving the description needs the write:products permission.',
          {
            extra: { required_permission: 'write:products' },
          },
        );
      }
      const language = canonicalLanguage(input.language ?? 'en');
      if (language === undefined) {
        throw validationError('language', 'must be a BCP 47 language tag such as "en" or "de-CH"');
      }
      // The rules a stored product's options keep: names unique, values unique per option.
      if (inline?.options !== undefined) checkOptions(inline.options, 'product.options');

      const tenantId = principal.tenant.id;
      let facts: ProductFacts;
      if (productId !== undefined) {
        facts = await storedFacts(tenantId, productId);
      } else if (inline !== undefined) {
        facts = {
          name: inline.name,
          category: inline.category ?? null,
          attributes: inline.attributes ?? {},
          features: inline.features ?? [],
          // As given: an inline product has no variants, so no stock to weigh them by.
          options: inline.options ?? [],
        };
      } else {
        throw validationError('product_id', 'or product is required');
      }

      const tone = input.tone ?? 'professional';
      const length = input.length ?? 'medium';
      const variant = input.variant ?? 0;
      const result = await provider.generate({
        product: facts,
        tone,
        length,
        language,
        keywords: input.keywords ?? [],
        variant,
      });
      let text = result.text;
      let truncated = result.truncated;
      if (text.length > MAX_DESCRIPTION_CHARS) {
        text = trimToLastSentence(text.slice(0, MAX_DESCRIPTION_CHARS));
        truncated = true;
      }

      const row: repo.GenerationRow = {
        id: newId('gen'),
        tenant_id: tenantId,
        product_id: productId ?? null,
        provider: provider.name,
        model: result.model,
        tone,
        length,
        language: result.language,
        variant,
        description: text,
        word_count: countWords(text),
        input_tokens: result.inputTokens,
        output_tokens: result.outputTokens,
        truncated: truncated ? 1 : 0,
        saved: 0,
        created: clock.now(),
      };
      // Saved: the description and its generation record commit together. The provider has been
      // paid for, so a save that fails still leaves the generation on record (unsaved).
      let recorded: repo.GenerationRow | undefined;
      let saveError: unknown;
      if (save && productId !== undefined) {
        const saved = { ...row, saved: 1 };
        try {
          await products.update(tenantId, productId, { description: text }, async (trx) => {
            await repo.insertGeneration(trx, saved);
            await idempotent.mark(trx, saved.id);
          });
          recorded = saved;
        } catch (error) {
          saveError = error;
        }
      }
      if (recorded === undefined) {
        recorded = row;
        await store.transaction(async (trx) => {
          await repo.insertGeneration(trx, row);
          await idempotent.mark(trx, row.id);
        });
      }
      if (saveError !== undefined) throw saveError;
      return present(recorded);
    },
  };
}
