import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import {
  type Client,
  client,
  createTenant,
  createTestContext,
  DIALECTS,
  type TestContext,
} from '../../../test/helpers/context.js';
import {
  allErrors,
  count,
  CSV,
  csv,
  importFile,
  importOf,
  JSONL,
  upload,
} from '../../../test/helpers/imports.js';
import type { Page, Problem } from '../../../test/helpers/responses.js';
import type { CustomerObject } from '../customers/customers.schemas.js';
import type { ProductObject } from '../products/products.schemas.js';
import type { ImportObject } from './imports.schemas.js';

const HEADER = ['handle', 'name', 'description', 'option1_name', 'option1_value', 'sku', 'price', 'stock'];

/** A file of `n` products without options, SKUs `${prefix}-1`... */
function simpleProducts(prefix: string, n: number, price = 1000): string {
  const rows: (string | number)[][] = [['handle', 'name', 'sku', 'price', 'stock']];
  for (let i = 1; i <= n; i++)
    rows.push([`${prefix}-${i}`, `${prefix} ${i}`, `${prefix}-${i}`, price + i, i]);
  return csv(rows);
}

async function productsOf(api: Client, q: string): Promise<ProductObject[]> {
  const res = await api<Page<ProductObject>>(
    'GET',
    `/v1/products?expand=variants&limit=100&q=${encodeURIComponent(q)}`,
  );
  assert.equal(res.status, 200);
  return res.body.data;
}

async function eventTypes(api: Client): Promise<string[]> {
  const res = await api<Page<{ type: string }>>('GET', '/v1/events?limit=100');
  return res.body.data.map((event) => event.type);
}

for (const dialect of DIALECTS) {
  describe(`imports (${dialect})`, () => {
    let ctx: TestContext;
    let key: string;
    let api: Client;

    before(async () => {
      ctx = await createTestContext(dialect, { imports: { batchRows: 2 } });
      key = (await createTenant(ctx)).apiKey.key;
      api = client(ctx.app, key);
    });
    after(() => ctx.close());

    it('imports products from a CSV in the background, showing progress, with their events', async () => {
      const file = csv([
        HEADER,
        ['tee', 'Progress Tee', 'Soft cotton,\n"organic" too', 'Size', 'S', 'PRG-TEE-S', 2500, 3],
        ['tee', '', '', '', 'M', 'PRG-TEE-M', 2600, 0],
        ['tee', '', '', '', 'L', 'PRG-TEE-L', 2700, 5],
        ['mug', 'Progress Mug', '', '', '', 'PRG-MUG', 900, 40],
      ]);
      const res = await upload(ctx, key, 'resource=products', file);
      assert.equal(res.status, 202, JSON.stringify(res.body));
      assert.match(res.body.id, /^imp_[0-9A-Za-z]{24}$/);
      assert.deepEqual(
        { ...res.body, id: undefined, created: undefined },
        {
          id: undefined,
          resource: 'products',
          format: 'csv',
          mode: 'upsert',
          dry_run: false,
          on_error: 'abort',
          status: 'queued',
          rows_total: 0,
          rows_processed: 0,
          created_count: 0,
          updated_count: 0,
          unchanged_count: 0,
          error_count: 0,
          errors: [],
          ignored_columns: [],
          filename: null,
          created: undefined,
          started_at: null,
          finished_at: null,
          livemode: true,
        },
      );
      // One batch (the tee's three rows): the file is being validated, nothing written yet.
      assert.equal(await ctx.deps.importRunner.runNext({ batches: 1 }), 'paused');
      const running = await importOf(ctx, key, res.body.id);
      assert.equal(running.status, 'running');
      assert.ok(running.started_at);
      assert.equal(running.rows_total, 3);
      assert.equal(running.rows_processed, 0);
      assert.equal((await productsOf(api, 'Progress')).length, 0);
      // The lease of the paused run stands in the way until it runs out: another run waits.
      assert.equal(await ctx.deps.importRunner.runNext(), 'none');
      await ctx.deps.store.db
        .updateTable('imports')
        .set({ lease_until: 0 })
        .where('id', '=', res.body.id)
        .execute();
      await ctx.deps.importRunner.drain();
      const done = await importOf(ctx, key, res.body.id);
      assert.deepEqual(
        [done.status, done.rows_total, done.rows_processed, done.created_count, done.error_count],
        ['succeeded', 4, 4, 4, 0],
      );
      assert.ok(done.finished_at);
      const [mug, tee] = await productsOf(api, 'Progress');
      assert.equal(tee?.name, 'Progress Tee');
      assert.equal(tee?.description, 'Soft cotton,\n"organic" too');
      assert.deepEqual(tee?.options, [{ name: 'Size', values: ['S', 'M', 'L'] }]);
      assert.deepEqual(
        tee?.variants?.map((v) => [v.sku, v.title, v.price, v.stock, v.position]),
        [
          ['PRG-TEE-S', 'S', 2500, 3, 1],
          ['PRG-TEE-M', 'M', 2600, 0, 2],
          ['PRG-TEE-L', 'L', 2700, 5, 3],
        ],
      );
      assert.deepEqual([tee?.price, tee?.price_max, tee?.stock, tee?.currency], [2500, 2700, 8, 'USD']);
      assert.deepEqual(
        [mug?.name, mug?.sku, mug?.price, mug?.stock, mug?.options],
        ['Progress Mug', 'PRG-MUG', 900, 40, []],
      );
      const types = await eventTypes(api);
      assert.equal(types.filter((type) => type === 'product.created').length, 2);
      const completed = await api<Page<{ type: string; data: { object: ImportObject } }>>(
        'GET',
        '/v1/events?type=import.completed',
      );
      assert.equal(completed.body.data[0]?.data.object.id, res.body.id);
      assert.equal(completed.body.data[0]?.data.object.status, 'succeeded');
      // The file is gone from the store once the import is done; the import stays.
      const chunks = await ctx.deps.store.db
        .selectFrom('import_chunks')
        .select('seq')
        .where('import_id', '=', res.body.id)
        .execute();
      assert.deepEqual(chunks, []);
    });

    it('reports in a dry run what the import would do, and writes nothing', async () => {
      const existing = await api<ProductObject>('POST', '/v1/products', {
        body: { name: 'Dry Lamp', sku: 'DRY-LAMP', price: 4000, stock: 2 },
      });
      assert.equal(existing.status, 201);
      const file = csv([
        ['handle', 'name', 'sku', 'price', 'stock'],
        ['lamp', 'Dry Lamp', 'dry-lamp', 4500, 2],
        ['vase', 'Dry Vase', 'DRY-VASE', 3000, 1],
        ['same', 'Dry Lamp', 'DRY-LAMP2', 'x', 1],
      ]);
      const eventsBefore = await count(ctx, 'events');
      const productsBefore = await count(ctx, 'products');
      const dry = await importFile(ctx, key, 'resource=products&dry_run=true&on_error=skip', file);
      assert.deepEqual(
        [dry.status, dry.dry_run, dry.rows_total, dry.rows_processed],
        ['succeeded', true, 3, 3],
      );
      assert.deepEqual(
        [dry.created_count, dry.updated_count, dry.unchanged_count, dry.error_count],
        [1, 1, 0, 1],
      );
      assert.deepEqual(dry.errors, [
        { line: 4, column: 'price', message: 'must be a whole number, not "x"' },
      ]);
      assert.equal(await count(ctx, 'products'), productsBefore);
      // Only import.completed was written.
      assert.equal(await count(ctx, 'events'), eventsBefore + 1);
      assert.equal((await api<ProductObject>('GET', `/v1/products/${existing.body.id}`)).body.price, 4000);
      const real = await importFile(ctx, key, 'resource=products&on_error=skip', file);
      assert.deepEqual(
        [real.created_count, real.updated_count, real.unchanged_count, real.error_count],
        [dry.created_count, dry.updated_count, dry.unchanged_count, dry.error_count],
      );
      assert.deepEqual(real.errors, dry.errors);
      assert.equal((await api<ProductObject>('GET', `/v1/products/${existing.body.id}`)).body.price, 4500);
    });

    it('writes nothing with on_error=abort when a row is bad, and the good rows with skip', async () => {
      const file = csv([
        ['handle', 'name', 'sku', 'price'],
        ['a', 'Abort A', 'ABT-A', 100],
        ['b', 'Abort B', 'ABT-B', '12.50'],
        ['c', 'Abort C', 'ABT-C', 300],
      ]);
      const aborted = await importFile(ctx, key, 'resource=products', file);
      assert.deepEqual(
        [aborted.status, aborted.created_count, aborted.rows_total, aborted.rows_processed],
        ['failed', 0, 3, 0],
      );
      assert.deepEqual(aborted.errors, [
        { line: 3, column: 'price', message: 'must be a whole number, not "12.50"' },
      ]);
      assert.equal((await productsOf(api, 'Abort')).length, 0);
      const skipped = await importFile(ctx, key, 'resource=products&on_error=skip', file);
      assert.deepEqual(
        [skipped.status, skipped.created_count, skipped.error_count, skipped.rows_processed],
        ['succeeded', 2, 1, 3],
      );
      assert.deepEqual((await productsOf(api, 'Abort')).map((p) => p.sku).sort(), ['ABT-A', 'ABT-C']);
    });

    it('names the line and the column of every error, in words', async () => {
      const file = csv([
        HEADER.concat(['status']),
        // Line 2 and 3: one record (a quoted line break).
        ['w1', 'Words One', 'two\nlines', '', '', 'WRD-1', 100, 1, 'active'],
        ['w1', 'Words Other', '', '', '', 'WRD-1B', 100, 1, ''],
        ['w2', 'Words Two', '', '', '', 'wrd-1', 100, 1, 'live'],
        ['w3', 'Words Three', '', 'Size', 'S', 'WRD-3S', 100, -1, ''],
        ['w3', '', '', '', '', 'WRD-3M', 100, 1, ''],
        ['w3', '', '', '', 'M', 'WRD-3M2', '', 1, ''],
        ['w4', '', '', '', '', 'WRD-4', 100, 1, ''],
        ['w1', 'Words Again', '', '', '', 'WRD-5', 100, 1, ''],
      ]);
      const done = await importFile(ctx, key, 'resource=products&on_error=skip', file);
      const errors = await allErrors(api, done.id);
      assert.deepEqual(errors, [
        {
          line: 4,
          column: 'name',
          message:
            "differs from the product's first row (line 2): leave the product's columns empty on its other rows",
        },
        {
          line: 4,
          column: 'handle',
          message:
            'repeats the handle of line 2, but the product has no options and so one variant: name its options (option1_name...) on its first row to give it several',
        },
        { line: 5, column: 'status', message: 'must be one of active, draft, archived, not "live"' },
        { line: 5, column: 'sku', message: 'repeats the SKU of line 2 (SKUs compare case-insensitively)' },
        { line: 6, column: 'stock', message: 'must be >= 0' },
        { line: 7, column: 'option1_value', message: 'is required: the product has the option Size' },
        {
          line: 8,
          column: null,
          message: "not imported: the product's first row (line 6) has errors",
        },
        { line: 9, column: 'name', message: 'is required to create a product' },
        {
          line: 10,
          column: 'handle',
          message: 'repeats the handle of line 2: the rows of one product must be next to each other',
        },
      ]);
      assert.equal(done.error_count, errors.length);
      assert.deepEqual([done.created_count, done.status], [1, 'succeeded']);
    });

    it('refuses a wrong or incomplete header on line 1, naming the column', async () => {
      const wrong = await importFile(ctx, key, 'resource=products', 'handle,name,prise\nh,Header,100\n');
      assert.equal(wrong.status, 'failed');
      assert.equal(wrong.errors.length, 1);
      assert.deepEqual([wrong.errors[0]?.line, wrong.errors[0]?.column], [1, 'prise']);
      assert.match(
        wrong.errors[0]?.message ?? '',
        /^is not a column of a products file \(the columns are handle, name/,
      );
      const missing = await importFile(ctx, key, 'resource=customers', 'name,phone\nAda,+441234567\n');
      assert.deepEqual(
        missing.errors.map((e) => [e.line, e.column]),
        [[1, 'email']],
      );
      const shopify = await importFile(
        ctx,
        key,
        'resource=customers',
        'Handle,Title,Variant Price\nmug,Mug,1.00\n',
      );
      assert.deepEqual(shopify.errors[0], {
        line: 1,
        column: 'Handle',
        message: 'is a column of a Shopify product export: import it with resource=products',
      });
    });

    it('answers 415, 422 invalid_import and 413 for bodies it cannot take, and keeps nothing of them', async () => {
      const before = await count(ctx, 'imports');
      const spool = path.join(ctx.store.dataDir, 'uploads');
      const refused = async (
        body: string | Buffer | Readable,
        type: string,
        status: number,
        code: string,
        query = 'resource=products',
        headers: Record<string, string> = {},
      ) => {
        const res = await upload(ctx, key, query, body, type, headers);
        assert.equal(res.status, status, `${type}: ${JSON.stringify(res.body)}`);
        assert.equal(res.body.code, code);
        assert.match(String(res.headers['content-type']), /application\/problem\+json/);
        return res.body as unknown as Problem;
      };
      await refused('{"handle": "x"}', 'application/json', 415, 'unsupported_media_type');
      await refused('handle,name\n', 'text/plain', 415, 'unsupported_media_type');
      await refused('handle,name\n', 'text/csv; charset=latin1', 415, 'unsupported_media_type');
      const empty = await refused('', CSV, 422, 'invalid_import');
      assert.match(empty.detail, /empty/);
      const binary = await refused(
        Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]),
        CSV,
        422,
        'invalid_import',
      );
      assert.match(binary.detail, /NUL/);
      const latin1 = await refused(
        Buffer.from('handle,name\nh,Caf\xe9\n', 'latin1'),
        CSV,
        422,
        'invalid_import',
      );
      assert.match(latin1.detail, /UTF-8/);
      await refused('handle,name\nh,Mug\n', JSONL, 422, 'invalid_import');
      await refused('[1, 2, 3]\n', JSONL, 422, 'invalid_import');
      await refused('"handle,name\nh,Mug\n', CSV, 422, 'invalid_import');
      // Over 50 MiB: refused at once when the length is declared...
      await refused('handle\n', CSV, 413, 'payload_too_large', 'resource=products', {
        'content-length': String(50 * 1024 * 1024 + 1),
      });
      // ...and when counted as it streams in, without holding it.
      const piece = Buffer.alloc(1024 * 1024, 'a\n');
      let left = 50 * 1024 * 1024 + 1;
      const stream = new Readable({
        read() {
          if (left <= 0) return void this.push(null);
          const size = Math.min(left, piece.length);
          left -= size;
          this.push(size === piece.length ? piece : piece.subarray(0, size));
        },
      });
      await refused(stream, CSV, 413, 'payload_too_large');
      // A bad query is refused before the body is read, and so is a key without the resource's write.
      await refused('email\n', CSV, 400, 'validation_failed', 'resource=orders');
      assert.equal(await count(ctx, 'imports'), before);
      assert.deepEqual(fs.existsSync(spool) ? fs.readdirSync(spool) : [], []);
    });

    it('needs write:imports and the resource’s write permission, and shows imports to their tenant only', async () => {
      const keyWith = async (permissions: string[]) => {
        const res = await api<{ key: string }>('POST', '/v1/api-keys', {
          body: { name: 'imports', permissions },
        });
        assert.equal(res.status, 201);
        return res.body.key;
      };
      const importsOnly = await keyWith(['write:imports', 'read:imports']);
      const refused = await upload(ctx, importsOnly, 'resource=products', simpleProducts('perm', 1));
      assert.deepEqual(
        [refused.status, refused.body.code, refused.body.required_permission],
        [403, 'insufficient_permissions', 'write:products'],
      );
      const customersToo = await keyWith(['write:imports', 'read:imports', 'write:customers']);
      const accepted = await upload(ctx, customersToo, 'resource=customers', 'email\nperm@example.com\n');
      assert.equal(accepted.status, 202);
      const otherKey = (await createTenant(ctx)).apiKey.key;
      const other = client(ctx.app, otherKey);
      assert.equal((await other('GET', `/v1/imports/${accepted.body.id}`)).status, 404);
      assert.equal((await other('GET', `/v1/imports/${accepted.body.id}/errors`)).status, 404);
      assert.equal((await other<Page<ImportObject>>('GET', '/v1/imports')).body.total, 0);
      const mine = await client(ctx.app, importsOnly)<Page<ImportObject>>('GET', '/v1/imports?limit=1');
      assert.equal(mine.status, 200);
      assert.equal(mine.body.data[0]?.id, accepted.body.id);
      assert.ok(mine.body.total > 1);
      const next = await client(ctx.app, importsOnly)<Page<ImportObject>>(
        'GET',
        `/v1/imports?limit=1&cursor=${mine.body.next_cursor}`,
      );
      assert.notEqual(next.body.data[0]?.id, accepted.body.id);
      await ctx.deps.importRunner.drain();
    });

    it('pages every error of an import; the import shows the first 100', async () => {
      const rows: (string | number)[][] = [['handle', 'name', 'sku', 'price']];
      for (let i = 1; i <= 150; i++) rows.push([`e${i}`, `Errors ${i}`, `ERR-${i}`, 'free']);
      const done = await importFile(ctx, key, 'resource=products&on_error=skip', csv(rows));
      assert.deepEqual([done.error_count, done.errors.length], [150, 100]);
      assert.deepEqual(done.errors[99], {
        line: 101,
        column: 'price',
        message: 'must be a whole number, not "free"',
      });
      const errors = await allErrors(api, done.id);
      assert.deepEqual(
        errors.map((e) => e.line),
        rows.slice(1).map((_, i) => i + 2),
      );
      const page = await api<Page<unknown>>('GET', `/v1/imports/${done.id}/errors?limit=10&offset=140`);
      assert.deepEqual([page.body.total, page.body.data.length, page.body.has_more], [150, 10, false]);
    });

    it('upserts by variant SKU, case-insensitively, counting unchanged rows; create mode refuses existing ones', async () => {
      const tee = await api<ProductObject>('POST', '/v1/products', {
        body: {
          name: 'Upsert Tee',
          options: [{ name: 'Size', values: ['S', 'M'] }],
          variants: [
            { sku: 'UPS-S', options: { Size: 'S' }, price: 2000, stock: 5 },
            { sku: 'UPS-M', options: { Size: 'M' }, price: 2000, stock: 5 },
          ],
        },
      });
      assert.equal(tee.status, 201);
      const file = csv([
        HEADER,
        ['tee', 'Upsert Tee', '', 'Size', 'S', 'ups-s', 2100, 0],
        ['tee', '', '', '', 'M', 'UPS-M', 2000, 5],
        ['tee', '', '', '', 'L', 'UPS-L', 2200, 7],
      ]);
      const created = await importFile(ctx, key, 'resource=products&mode=create&on_error=skip', file);
      assert.deepEqual([created.created_count, created.error_count], [0, 3]);
      assert.match(
        created.errors[0]?.message ?? '',
        /^is the SKU of a variant of product prod_\w+: mode=create adds new products only/,
      );
      const done = await importFile(ctx, key, 'resource=products', file);
      assert.deepEqual(
        [done.status, done.created_count, done.updated_count, done.unchanged_count],
        ['succeeded', 1, 1, 1],
      );
      const after = (await api<ProductObject>('GET', `/v1/products/${tee.body.id}`)).body;
      assert.deepEqual(after.options, [{ name: 'Size', values: ['S', 'M', 'L'] }]);
      assert.deepEqual(
        after.variants?.map((v) => [v.sku, v.price, v.stock]),
        [
          ['ups-s', 2100, 0],
          ['UPS-M', 2000, 5],
          ['UPS-L', 2200, 7],
        ],
      );
      assert.deepEqual([after.stock, after.price, after.price_max], [12, 2000, 2200]);
      const types = await eventTypes(api);
      assert.ok(types.includes('product.updated'));
      assert.ok(types.includes('product.outofstock'));
      const again = await importFile(ctx, key, 'resource=products', file.replace('ups-s', 'ups-s'));
      assert.deepEqual([again.created_count, again.updated_count, again.unchanged_count], [0, 0, 3]);
    });

    it('imports customers from CSV and JSON Lines, addresses on their own rows, upserting by email', async () => {
      const file = csv([
        [
          'email',
          'name',
          'phone',
          'tags',
          'note',
          'marketing_consent',
          'metadata',
          'address_line1',
          'address_city',
          'address_country',
        ],
        [
          'Ada@Example.com',
          'Ada Lovelace',
          '+442079460000',
          'vip, "press, uk"',
          'Prefers\nemail',
          'yes',
          '{"crm":"42"}',
          '12 St James Square',
          'London',
          'GB',
        ],
        ['ada@example.com', '', '', '', '', '', '', '1 Main St', 'Boston', 'US'],
        ['grace@example.com', 'Grace Hopper', '', '', '', 'false', '', '', '', ''],
        ['bad@example.com', 'Bad Country', '', '', '', '', '', '1 Nowhere', 'Atlantis', 'XX'],
      ]);
      const done = await importFile(ctx, key, 'resource=customers&on_error=skip', file);
      assert.deepEqual([done.created_count, done.error_count], [3, 1]);
      assert.deepEqual(done.errors, [
        { line: 6, column: 'address_country', message: 'must be an ISO 3166-1 alpha-2 country code' },
      ]);
      const list = await api<Page<CustomerObject>>('GET', '/v1/customers?q=ada&limit=10');
      const ada = list.body.data[0] as CustomerObject;
      assert.deepEqual(
        [ada.email, ada.name, ada.tags, ada.note, ada.marketing_consent, ada.metadata],
        ['Ada@Example.com', 'Ada Lovelace', ['vip', 'press, uk'], 'Prefers\nemail', true, { crm: '42' }],
      );
      assert.deepEqual(ada.addresses, [
        { line1: '12 St James Square', city: 'London', country: 'GB' },
        { line1: '1 Main St', city: 'Boston', country: 'US' },
      ]);
      const lines = [
        { email: 'ADA@example.com', name: 'Ada King' },
        { email: 'grace@example.com', name: 'Grace Hopper', marketing_consent: false },
        { email: 'new@example.com', name: null, tags: ['jsonl'] },
      ];
      const jsonl = await importFile(
        ctx,
        key,
        'resource=customers',
        `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`,
        JSONL,
      );
      assert.deepEqual(
        [jsonl.format, jsonl.created_count, jsonl.updated_count, jsonl.unchanged_count],
        ['jsonl', 1, 1, 1],
      );
      const king = await api<CustomerObject>('GET', `/v1/customers/${ada.id}`);
      // Only the columns the file has change: the name and the email's case; the addresses stay.
      assert.deepEqual(
        [king.body.name, king.body.email, king.body.addresses.length],
        ['Ada King', 'ADA@example.com', 2],
      );
      const refused = await importFile(
        ctx,
        key,
        'resource=customers&mode=create',
        'email\ngrace@EXAMPLE.com\n',
      );
      assert.equal(refused.status, 'failed');
      assert.match(
        refused.errors[0]?.message ?? '',
        /^is the email of customer cus_\w+ \(compared case-insensitively\): mode=create/,
      );
      const types = await eventTypes(api);
      assert.ok(types.includes('customer.created') && types.includes('customer.updated'));
    });

    it("stores customers' address states as POST /customers does, naming a state the country does not have", async () => {
      const file = csv([
        ['email', 'address_line1', 'address_city', 'address_state', 'address_country'],
        ['states.one@example.com', '1 Main St', 'Los Angeles', 'california\u200b', 'US'],
        ['states.one@example.com', '1 rue X', 'Montreal', 'Que\u0301bec', 'CA'],
        ['states.one@example.com', '2 Main St', 'Reno', ' ', 'US'],
        ['states.two@example.com', '1 Main St', 'Nowhere', 'Calif', 'US'],
      ]);
      const done = await importFile(ctx, key, 'resource=customers&on_error=skip', file);
      // Counted by row: the first customer's three rows are created.
      assert.deepEqual([done.created_count, done.error_count], [3, 1]);
      assert.deepEqual(
        done.errors.map((e) => [e.line, e.column]),
        [[5, 'address_state']],
      );
      const list = await api<Page<CustomerObject>>('GET', '/v1/customers?q=states.one');
      assert.deepEqual(
        list.body.data[0]?.addresses.map((a) => a.state),
        ['CA', 'QC', undefined],
      );
    });

    it('answers a retried upload with the same Idempotency-Key with the same import', async () => {
      const before = await count(ctx, 'imports');
      const file = simpleProducts('idem', 2);
      const first = await upload(ctx, key, 'resource=products', file, CSV, {
        'idempotency-key': 'imports-1',
      });
      const again = await upload(ctx, key, 'resource=products', file, CSV, {
        'idempotency-key': 'imports-1',
      });
      assert.equal(first.status, 202);
      assert.equal(again.status, 202);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.equal(again.body.id, first.body.id);
      const other = await upload(ctx, key, 'resource=products', simpleProducts('idem', 3), CSV, {
        'idempotency-key': 'imports-1',
      });
      assert.deepEqual([other.status, other.body.code], [422, 'idempotency_key_reused']);
      assert.equal(await count(ctx, 'imports'), before + 1);
      await ctx.deps.importRunner.drain();
    });
  });
}
