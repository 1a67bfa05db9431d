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
import { importOf, upload } from '../../../test/helpers/imports.js';
import type { Page, Problem } from '../../../test/helpers/responses.js';
import type { AppError } from '../../lib/errors.js';
import { filenameOf, MAX_FILENAME } from './imports.filename.js';
import type { ImportObject } from './imports.schemas.js';

/** An import names the file it was sent, from the upload's `Content-Disposition`, from 2027-01-20. */

const FILE = 'email,name\nada@example.com,Ada\n';
const LATEST = { 'X-Service-Version': '2027-01-20' };

describe('the file name of an upload, from its Content-Disposition', () => {
  it('reads filename, quoted or a token, and filename* (UTF-8, percent-encoded), which wins', () => {
    for (const [header, name] of [
      [undefined, null],
      ['attachment', null],
      ['attachment; filename="products.csv"', 'products.csv'],
      ['attachment; filename=products.csv', 'products.csv'],
      ['inline;filename="my \\"best\\" file.csv"', 'my "best" file.csv'],
      ['Attachment; FileName="a.csv"; size=12', 'a.csv'],
      ["attachment; filename*=UTF-8''na%C3%AFve%20list.csv", 'naïve list.csv'],
      ["attachment; filename*=utf-8'en'%E2%82%AC.csv", '€.csv'],
      ["attachment; filename*=UTF-8''report%20%281%29%20%27final%27.csv", "report (1) 'final'.csv"],
      ['attachment; filename="fallback.csv"; filename*=UTF-8\'\'r%C3%A9el.csv', 'réel.csv'],
      ['attachment; filename="C:\\\\Users\\\\ada\\\\export.csv"', 'export.csv'],
      ['attachment; filename="../../etc/passwd"', 'passwd'],
      // Raw UTF-8 bytes in the header, which Node reads as Latin-1.
      [`attachment; filename="${Buffer.from('café.csv').toString('latin1')}"`, 'café.csv'],
      [`attachment; filename="${'x'.repeat(MAX_FILENAME)}"`, 'x'.repeat(MAX_FILENAME)],
    ] as const) {
      assert.equal(filenameOf(header), name, String(header));
    }
  });

  it('refuses a name that is empty, too long or holds a control character, or a header it cannot read', () => {
    for (const header of [
      'attachment; filename=""',
      'attachment; filename="  "',
      'attachment; filename="dir/"',
      `attachment; filename="${'x'.repeat(MAX_FILENAME + 1)}"`,
      `attachment; filename*=UTF-8''${'%C3%A9'.repeat(MAX_FILENAME + 1)}`,
      'attachment; filename="tab\there.csv"',
      "attachment; filename*=UTF-8''new%0Aline.csv",
      "attachment; filename*=UTF-8''del%7F.csv",
      "attachment; filename*=UTF-8''c1%C2%85.csv",
      "attachment; filename*=ISO-8859-1''caf%E9.csv",
      "attachment; filename*=UTF-8''bad%E9.csv",
      'attachment; filename*=plain.csv',
      'attachment; filename="a.csv"; filename="b.csv"',
      'attachment; filename="unterminated.csv',
      'attachment filename="a.csv"',
      '; filename="a.csv"',
      'attachment; filename="a.csv", attachment; filename="b.csv"',
    ]) {
      assert.throws(
        () => filenameOf(header),
        (error: AppError) => {
          assert.equal(error.code, 'validation_failed', header);
          assert.deepEqual(
            error.errors?.map((e) => e.field),
            ['Content-Disposition'],
            header,
          );
          return true;
        },
        header,
      );
    }
  });
});

for (const dialect of DIALECTS) {
  describe(`imports carry the name of their file (${dialect})`, () => {
    let ctx: TestContext;
    let key: string;
    let api: Client;

    before(async () => {
      ctx = await createTestContext(dialect);
      key = (await createTenant(ctx, { apiVersion: '2027-01-20' })).apiKey.key;
      api = client(ctx.app, key);
    });
    after(() => ctx.close());

    const named = (filename: string) => ({ 'content-disposition': filename });

    it('keeps the name an upload gives, shows it on the import, its list and its event; null without one', async () => {
      const sent = await upload(
        ctx,
        key,
        'resource=customers',
        FILE,
        'text/csv',
        named("attachment; filename*=UTF-8''Kunden%20M%C3%A4rz.csv"),
      );
      assert.equal(sent.status, 202, JSON.stringify(sent.body));
      assert.equal(sent.body.filename, 'Kunden März.csv');
      const unnamed = await upload(ctx, key, 'resource=customers', FILE);
      assert.equal(unnamed.status, 202);
      assert.equal(unnamed.body.filename, null);
      await ctx.deps.importRunner.drain();
      const done = await importOf(ctx, key, sent.body.id);
      assert.deepEqual([done.status, done.filename], ['succeeded', 'Kunden März.csv']);
      const list = await api<Page<ImportObject>>('GET', '/v1/imports');
      assert.deepEqual(
        list.body.data.map((row) => [row.id, row.filename]),
        [
          [unnamed.body.id, null],
          [sent.body.id, 'Kunden März.csv'],
        ],
      );
      const events = await api<Page<{ data: { object: ImportObject } }>>(
        'GET',
        '/v1/events?type=import.completed',
      );
      const event = events.body.data.find((row) => row.data.object.id === sent.body.id);
      assert.equal(event?.data.object.filename, 'Kunden März.csv');
    });

    it('refuses a bad name with a problem naming Content-Disposition, and keeps nothing', async () => {
      const before = (await api<Page<ImportObject>>('GET', '/v1/imports')).body.total;
      for (const header of [
        `attachment; filename="${'n'.repeat(MAX_FILENAME + 1)}.csv"`,
        "attachment; filename*=UTF-8''a%00b.csv",
        'attachment; filename=""',
        'attachment; filename="a.csv',
      ]) {
        const res = await upload(ctx, key, 'resource=customers', FILE, 'text/csv', named(header));
        assert.equal(res.status, 400, header);
        const problem = res.body as unknown as Problem;
        assert.equal(problem.code, 'validation_failed');
        assert.deepEqual(
          problem.errors?.map((e) => e.field),
          ['Content-Disposition'],
          header,
        );
      }
      assert.equal((await api<Page<ImportObject>>('GET', '/v1/imports')).body.total, before);
    });

    it('counts the name as part of the request an Idempotency-Key stands for', async () => {
      const keyed = (name: string) =>
        upload(ctx, key, 'resource=customers', FILE, 'text/csv', {
          'idempotency-key': 'same-file-twice',
          ...named(`attachment; filename="${name}"`),
        });
      const first = await keyed('one.csv');
      assert.equal(first.status, 202);
      const again = await keyed('one.csv');
      assert.deepEqual([again.status, again.body.id], [202, first.body.id]);
      const other = await keyed('two.csv');
      assert.equal(other.status, 422, JSON.stringify(other.body));
      await ctx.deps.importRunner.drain();
    });

    for (const version of ['2026-11-21', '2026-12-15']) {
      it(`is not shown to version ${version}: not on the upload, the import, the list or the event`, async () => {
        const pinnedKey = (await createTenant(ctx, { apiVersion: version })).apiKey.key;
        const pinned = client(ctx.app, pinnedKey);
        const sent = await upload(
          ctx,
          pinnedKey,
          'resource=customers',
          FILE,
          'text/csv',
          named('attachment; filename="old.csv"'),
        );
        assert.equal(sent.status, 202, JSON.stringify(sent.body));
        assert.equal('filename' in sent.body, false);
        await ctx.deps.importRunner.drain();
        const read = await pinned<Record<string, unknown>>('GET', `/v1/imports/${sent.body.id}`);
        assert.deepEqual([read.body.status, 'filename' in read.body], ['succeeded', false]);
        const list = await pinned<Page<Record<string, unknown>>>('GET', '/v1/imports');
        assert.equal(list.body.data.length, 1);
        assert.equal('filename' in (list.body.data[0] ?? {}), false);
        const events = await pinned<Page<{ data: { object: Record<string, unknown> } }>>(
          'GET',
          '/v1/events?type=import.completed',
        );
        assert.equal(events.body.data.length, 1);
        assert.equal('filename' in (events.body.data[0]?.data.object ?? {}), false);
        // The same import at 2027-01-20 names its file.
        const latest = await pinned<ImportObject>('GET', `/v1/imports/${sent.body.id}`, { headers: LATEST });
        assert.equal(latest.body.filename, 'old.csv');
      });
    }
  });
}
