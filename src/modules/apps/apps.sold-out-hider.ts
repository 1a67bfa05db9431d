import type { AppHandler } from './apps.runtime.js';

/**
 * Sold-out hider: a product whose stock is all gone is set to `draft`; when it is restocked, a
 * product this app hid is set back to `active` (one the merchant set to draft stays so). It reads
 * the product as it is now on every event, so events arriving late or twice change nothing.
 */

interface Product {
  id: string;
  stock: number;
  status: string;
}

export const soldOutHider: AppHandler = {
  async handle(event, api, marks) {
    if (event.type !== 'product.outofstock' && event.type !== 'product.updated') return;
    const productId = event.data.object.id;
    if (typeof productId !== 'string') return;
    const path = `/products/${encodeURIComponent(productId)}`;
    const current = await api.call('GET', path);
    if (current.status === 404) return;
    if (current.status !== 200) throw new Error(`GET ${path} answered ${current.status}`);
    const product = current.body as Product;
    const mark = `hidden:${product.id}`;
    const set = async (status: 'draft' | 'active') => {
      const res = await api.call('PATCH', path, { status });
      if (res.status !== 200 && res.status !== 404) throw new Error(`PATCH ${path} answered ${res.status}`);
    };
    if (product.stock === 0 && product.status === 'active') {
      await marks.add(mark);
      await set('draft');
    } else if (product.stock > 0 && (await marks.has(mark))) {
      if (product.status === 'draft') await set('active');
      await marks.remove(mark);
    }
  },
};
