import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  type Client,
  client,
  createTenant,
  createTestContext,
  DIALECTS,
  type TestContext,
} from '../../../test/helpers/context.js';
import { allErrors, csv, importFile } from '../../../test/helpers/imports.js';
import type { Page, Problem } from '../../../test/helpers/responses.js';
import type { ProductObject } from './products.schemas.js';

/**
 * Products' `media` (version 2027-01-20): the images with their alt text, given as `media` or as
 * `images` (which keep the alt text of the URLs that stay); older versions neither see nor send it.
 */

const LATEST = { 'x-service-version': '2027-01-20' };
const A = 'https://cdn.example.com/a.jpg';
const B = 'https://cdn.example.com/b.jpg';
const C = 'https://cdn.example.com/c.jpg';
type ProblemWithErrors = Problem & { errors?: { field: string; message: string }[] };
const fields = (body: unknown) => ((body as ProblemWithErrors).errors ?? []).map((e) => e.field);

interface EventBody {
  type: string;
  data: { object: ProductObject };
}

for (const dialect of DIALECTS) {
  describe(`product media (${dialect})`, () => {
    let ctx: TestContext;
    let latest: Client;

    before(async () => {
      ctx = await createTestContext(dialect);
      latest = client(ctx.app, (await createTenant(ctx, { apiVersion: '2027-01-20' })).apiKey.key);
    });
    after(() => ctx.close());

    it('keeps images with their alt text in order, shown in answers, lists and events', async () => {
      const created = await latest<ProductObject>('POST', '/v1/products', {
        body: {
          name: 'Lamp',
          price: 4500,
          media: [{ url: A, alt: 'The lamp, lit' }, { url: B }, { url: C, alt: null }],
        },
        headers: LATEST,
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const media = [
        { url: A, alt: 'The lamp, lit' },
        { url: B, alt: null },
        { url: C, alt: null },
      ];
      assert.deepEqual(created.body.media, media);
      assert.deepEqual(created.body.images, [A, B, C]);
      const got = await latest<ProductObject>('GET', `/v1/products/${created.body.id}`, { headers: LATEST });
      assert.deepEqual(got.body.media, media);
      const list = await latest<Page<ProductObject>>('GET', '/v1/products', { headers: LATEST });
      assert.deepEqual(list.body.data.find((p) => p.id === created.body.id)?.media, media);
      const events = await latest<Page<EventBody>>('GET', '/v1/events?type=product.created', {
        headers: LATEST,
      });
      const event = events.body.data.find((e) => e.data.object.id === created.body.id);
      assert.deepEqual(event?.data.object.media, media);
    });

    it('`images` alone keep the alt text of the URLs that stay; a URL dropped and given again has none', async () => {
      const created = await latest<ProductObject>('POST', '/v1/products', {
        body: {
          name: 'Chair',
          price: 9000,
          media: [
            { url: A, alt: 'Front' },
            { url: B, alt: 'Back' },
          ],
        },
        headers: LATEST,
      });
      const id = created.body.id;
      const reordered = await latest<ProductObject>('PATCH', `/v1/products/${id}`, {
        body: { images: [C, B] },
        headers: LATEST,
      });
      assert.equal(reordered.status, 200, JSON.stringify(reordered.body));
      assert.deepEqual(reordered.body.media, [
        { url: C, alt: null },
        { url: B, alt: 'Back' },
      ]);
      const again = await latest<ProductObject>('PATCH', `/v1/products/${id}`, {
        body: { images: [A, B] },
        headers: LATEST,
      });
      assert.deepEqual(again.body.media, [
        { url: A, alt: null },
        { url: B, alt: 'Back' },
      ]);
      // `media` replaces them all: alt text set, changed and cleared.
      const replaced = await latest<ProductObject>('PATCH', `/v1/products/${id}`, {
        body: {
          media: [
            { url: B, alt: null },
            { url: A, alt: 'Front view' },
          ],
        },
        headers: LATEST,
      });
      assert.deepEqual(replaced.body.media, [
        { url: B, alt: null },
        { url: A, alt: 'Front view' },
      ]);
      assert.deepEqual(replaced.body.images, [B, A]);
      // The same alt text again changes nothing: no new event.
      const before = await latest<Page<EventBody>>('GET', '/v1/events?type=product.updated', {
        headers: LATEST,
      });
      const same = await latest<ProductObject>('PATCH', `/v1/products/${id}`, {
        body: { media: [{ url: B }, { url: A, alt: 'Front view' }] },
        headers: LATEST,
      });
      assert.equal(same.body.updated, replaced.body.updated);
      const afterSame = await latest<Page<EventBody>>('GET', '/v1/events?type=product.updated', {
        headers: LATEST,
      });
      assert.equal(afterSame.body.data.length, before.body.data.length);
    });

    it('refuses images and media together, a bad URL or alt text, and one URL with two alt texts', async () => {
      const both = await latest('POST', '/v1/products', {
        body: { name: 'Both', price: 100, images: [A], media: [{ url: A, alt: 'x' }] },
        headers: LATEST,
      });
      assert.equal(both.status, 400);
      assert.deepEqual(fields(both.body), ['media']);
      const created = await latest<ProductObject>('POST', '/v1/products', {
        body: { name: 'Stool', price: 100 },
        headers: LATEST,
      });
      const patchBoth = await latest('PATCH', `/v1/products/${created.body.id}`, {
        body: { images: [A], media: [{ url: A }] },
        headers: LATEST,
      });
      assert.equal(patchBoth.status, 400);
      assert.deepEqual(fields(patchBoth.body), ['media']);
      const twice = await latest('PATCH', `/v1/products/${created.body.id}`, {
        body: { media: [{ url: A, alt: 'One' }, { url: B }, { url: A, alt: 'Two' }] },
        headers: LATEST,
      });
      assert.equal(twice.status, 400);
      assert.deepEqual(fields(twice.body), ['media[2].alt']);
      const http = await latest('PATCH', `/v1/products/${created.body.id}`, {
        body: { media: [{ url: 'http://cdn.example.com/a.jpg' }] },
        headers: LATEST,
      });
      assert.equal(http.status, 400);
      assert.ok(
        fields(http.body).some((field) => field.startsWith('media')),
        JSON.stringify(http.body),
      );
      const long = await latest('PATCH', `/v1/products/${created.body.id}`, {
        body: { media: [{ url: A, alt: 'x'.repeat(513) }] },
        headers: LATEST,
      });
      assert.equal(long.status, 400);
      assert.ok(
        fields(long.body).some((field) => field.startsWith('media')),
        JSON.stringify(long.body),
      );
      const exact = await latest<ProductObject>('PATCH', `/v1/products/${created.body.id}`, {
        body: { media: [{ url: A, alt: 'x'.repeat(512) }] },
        headers: LATEST,
      });
      assert.equal(exact.status, 200, JSON.stringify(exact.body));
      assert.equal(exact.body.media[0]?.alt?.length, 512);
    });

    it('imports read `image_alts` (alt text by URL); images alone keep it; a URL not among the images is an error', async () => {
      const tenant = await createTenant(ctx, { apiVersion: '2027-01-20' });
      const api = client(ctx.app, tenant.apiKey.key);
      const header = ['handle', 'name', 'sku', 'price', 'images', 'image_alts'];
      const created = await importFile(
        ctx,
        tenant.apiKey.key,
        'resource=products',
        csv([
          header,
          ['desk', 'Desk', 'DESK-1', '12000', `${A}, ${B}`, JSON.stringify({ [B]: 'Desk, from above' })],
        ]),
      );
      assert.deepEqual([created.status, created.created_count], ['succeeded', 1]);
      assert.equal(created.ignored_columns.length, 0);
      const desk = async () =>
        (await api<Page<ProductObject>>('GET', '/v1/products?handle=desk', { headers: LATEST })).body.data[0];
      assert.deepEqual((await desk())?.media, [
        { url: A, alt: null },
        { url: B, alt: 'Desk, from above' },
      ]);
      // A file without the column changes the images only: the URL that stays keeps its alt text.
      const moved = await importFile(
        ctx,
        tenant.apiKey.key,
        'resource=products',
        csv([
          ['handle', 'sku', 'images'],
          ['desk', 'DESK-1', `${B}, ${C}`],
        ]),
      );
      assert.deepEqual([moved.status, moved.updated_count], ['succeeded', 1]);
      assert.deepEqual((await desk())?.media, [
        { url: B, alt: 'Desk, from above' },
        { url: C, alt: null },
      ]);
      const foreign = await importFile(
        ctx,
        tenant.apiKey.key,
        'resource=products',
        csv([header, ['desk', 'Desk', 'DESK-1', '12000', B, JSON.stringify({ [A]: 'Gone' })]]),
      );
      assert.equal(foreign.status, 'failed');
      const [error] = await allErrors(api, foreign.id);
      assert.deepEqual([error?.line, error?.column], [2, 'image_alts']);
      assert.match(error?.message ?? '', /not one of the product's images/);
    });

    for (const version of ['2026-12-15', '2026-11-21']) {
      it(`a tenant pinned to ${version} neither sees media nor may send it; its images keep the alt text`, async () => {
        const tenant = await createTenant(ctx, { apiVersion: version });
        const old = client(ctx.app, tenant.apiKey.key);
        const refused = await old<ProblemWithErrors>('POST', '/v1/products', {
          body: { name: 'Vase', price: 2000, media: [{ url: A, alt: 'Blue vase' }] },
        });
        assert.equal(refused.status, 400);
        assert.equal(refused.headers['x-service-version'], version);
        assert.deepEqual(fields(refused.body), ['media']);
        const created = await old<ProductObject>('POST', '/v1/products', {
          body: { name: 'Vase', price: 2000, images: [A, B] },
        });
        assert.equal(created.status, 201, JSON.stringify(created.body));
        assert.equal('media' in created.body, false);
        const id = created.body.id;
        const patchRefused = await old('PATCH', `/v1/products/${id}`, { body: { media: [{ url: A }] } });
        assert.equal(patchRefused.status, 400);
        assert.deepEqual(fields(patchRefused.body), ['media']);
        assert.equal('media' in (await old<ProductObject>('GET', `/v1/products/${id}`)).body, false);
        const list = await old<Page<ProductObject>>('GET', '/v1/products');
        for (const item of list.body.data) assert.equal('media' in item, false);
        // The latest version, by header, gives alt text; the pinned one's images keep it.
        const described = await old<ProductObject>('PATCH', `/v1/products/${id}`, {
          body: { media: [{ url: A, alt: 'Blue vase' }, { url: B }] },
          headers: LATEST,
        });
        assert.equal(described.status, 200, JSON.stringify(described.body));
        const reordered = await old<ProductObject>('PATCH', `/v1/products/${id}`, {
          body: { images: [B, A] },
        });
        assert.equal(reordered.status, 200);
        assert.equal('media' in reordered.body, false);
        assert.deepEqual(reordered.body.images, [B, A]);
        const now = await old<ProductObject>('GET', `/v1/products/${id}`, { headers: LATEST });
        assert.deepEqual(now.body.media, [
          { url: B, alt: null },
          { url: A, alt: 'Blue vase' },
        ]);
        const events = await old<Page<EventBody>>('GET', '/v1/events?limit=100');
        const products = events.body.data.filter((e) => e.type.startsWith('product.'));
        assert.ok(products.length >= 3);
        for (const event of products) assert.equal('media' in event.data.object, false);
      });
    }
  });
}
