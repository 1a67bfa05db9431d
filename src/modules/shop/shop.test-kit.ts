import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { inPage, painted, settled, WIDE } from '../../../test/helpers/console-browser.js';
import type { components } from '../../../clients/typescript/src/generated/schema.js';

/**
 * What the shop's browser suite does on a page: a screenshot at a phone's size (checked not to
 * scroll sideways), labels and alt texts, the cart id it keeps, a product found and added, an
 * address entered, and the checkout's figures against the cart as the admin API prices it.
 */

export type Cart = components['schemas']['Cart'];

/** The admin API as the demo store's secret key calls it (in process). */
export type Admin = <T>(method: 'GET' | 'POST' | 'PATCH', url: string, body?: object) => Promise<T>;

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
/** Where the screenshots go: the run's artifacts, and /tmp/shots to look at. */
export const ARTIFACTS = [path.join(ROOT, 'test-artifacts', 'shop'), '/tmp/shots'];
const PHONE = { width: 375, height: 812 };

/** Dollars as the shop shows them to an en-US browser. */
export const usd = (minor: number) =>
  new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' }).format(minor / 100);

/** The page at a phone's size, checked not to scroll sideways, screenshotted; then wide again. */
export async function phoneShot(page: Page, name: string): Promise<void> {
  await page.setViewportSize(PHONE);
  await painted(page);
  const overflow = await settled(
    () => inPage<number>(page, 'document.documentElement.scrollWidth - window.innerWidth'),
    (px) => px <= 0,
  );
  assert.ok(overflow <= 0, `${name} scrolls sideways by ${overflow}px at 375px`);
  for (const dir of ARTIFACTS)
    await page.screenshot({ path: path.join(dir, `shop-${name}-375.png`), fullPage: true });
  await page.setViewportSize(WIDE);
  await painted(page);
  await page.screenshot({ path: path.join(ARTIFACTS[0] ?? '', `shop-${name}-1280.png`), fullPage: true });
}

/** Every field has a label and every picture its text. */
export async function accessible(page: Page, where: string): Promise<void> {
  const unlabelled = await inPage<string[]>(
    page,
    `[...document.querySelectorAll('input, select, textarea')].filter((e) => e.labels.length === 0 && !e.getAttribute('aria-label')).map((e) => e.outerHTML)`,
  );
  assert.deepEqual(unlabelled, [], `unlabelled fields on ${where}`);
  assert.equal(await inPage<number>(page, `document.querySelectorAll('img:not([alt])').length`), 0, where);
}

/** The shop's cart id, as it keeps it in local storage. */
export async function cartIdOf(page: Page): Promise<string> {
  const id = await inPage<string | null>(
    page,
    `Object.keys(localStorage).filter((k) => k.endsWith(':cart')).map((k) => localStorage.getItem(k))[0] ?? null`,
  );
  assert.ok(id !== null && id.startsWith('cart_'), `a cart id in local storage, not ${id}`);
  return id;
}

/** Waits for the catalog to show the products of its address (not the last ones, kept while it asks). */
export async function listed(page: Page): Promise<void> {
  await page.locator('ul[aria-label="Products"][aria-busy="false"]').waitFor();
}

/** Adds a product from its page, found by search, and waits for the cart to say so. */
export async function addToCart(page: Page, name: string, quantity = 1): Promise<void> {
  await page.getByRole('searchbox', { name: 'Search products' }).fill(name);
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  await page.getByRole('heading', { level: 1, name: `Results for “${name}”` }).waitFor();
  await listed(page);
  await page
    .getByRole('link', { name: new RegExp(`^${name}`) })
    .first()
    .click();
  await page.getByRole('heading', { level: 1, name }).waitFor();
  await page.getByLabel('Quantity').fill(String(quantity));
  await page.getByRole('button', { name: 'Add to cart' }).click();
  await page.getByText(`Added ${name}`).waitFor();
}

/** Chooses an option's value by its label (as a click on the picker does). */
export async function pick(page: Page, value: string): Promise<void> {
  await page
    .locator('label.pill')
    .filter({ hasText: new RegExp(`^${value}( \\(sold out\\))?$`) })
    .click();
}

/** Fills the checkout's contact and address (New York: its sales tax applies) and saves them. */
export async function enterAddress(page: Page, email?: string): Promise<void> {
  if (email !== undefined) await page.getByLabel('Email').fill(email);
  await page.getByLabel('Full name').fill('Ada Shopper');
  await page.getByLabel('Address', { exact: true }).fill('1 Main St');
  await page.getByLabel('City').fill('New York');
  await page.getByLabel('State or region').fill('NY');
  await page.getByLabel('Postal code').fill('10001');
  await page.getByRole('button', { name: 'Save address' }).click();
  await page.getByRole('radio', { name: /^Standard/ }).waitFor();
}

/** The checkout's figures equal the cart's as the admin API prices it now. */
export async function figuresMatch(page: Page, cartId: string, admin: Admin): Promise<Cart> {
  const figure = (name: string) => page.locator(`.summary [data-figure="${name}"]`).textContent();
  const cart = await admin<Cart>('GET', `/v1/carts/${cartId}`);
  const shown = await settled(
    async () => [
      await figure('subtotal'),
      await figure('shipping'),
      await figure('tax'),
      await figure('total'),
    ],
    (values) => values[3] === usd(cart.total),
  );
  assert.deepEqual(shown, [
    usd(cart.subtotal),
    usd(cart.shipping_total),
    usd(cart.tax_total),
    usd(cart.total),
  ]);
  if (cart.discount_total > 0) assert.equal(await figure('discount'), `−${usd(cart.discount_total)}`);
  return cart;
}
