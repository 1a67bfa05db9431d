import type { AppHandler } from './apps.runtime.js';

/**
 * AI Autowriter: a new product without a description gets one, written by the AI provider the
 * platform is configured with and saved to the product, through `POST /ai/generate-description`
 * with `save: true` (permissions `write:ai` and `write:products`).
 */

function blank(value: unknown): boolean {
  return typeof value !== 'string' || value.trim() === '';
}

export const autowriter: AppHandler = {
  async handle(event, api) {
    if (event.type !== 'product.created') return;
    const productId = event.data.object.id;
    if (typeof productId !== 'string' || !blank(event.data.object.description)) return;
    // The product as it is now: it may have been given a description, or deleted, since.
    const current = await api.call('GET', `/products/${encodeURIComponent(productId)}`);
    if (current.status === 404) return;
    if (current.status !== 200) throw new Error(`GET /products/${productId} answered ${current.status}`);
    if (!blank((current.body as { description?: unknown }).description)) return;
    // Keyed by the event: a redelivery replays the first answer instead of writing again.
    const written = await api.call(
      'POST',
      '/ai/generate-description',
      { product_id: productId, save: true },
      `ai-autowriter-${event.id}`,
    );
    if (written.status === 404) return;
    if (written.status < 200 || written.status >= 300)
      throw new Error(`POST /ai/generate-description answered ${written.status}`);
  },
};
