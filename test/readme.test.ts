import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../src/config.js';
import { type RunningServer, startServer } from '../src/server.js';
import { SKIP_IN_UNIT_RUN } from './helpers/process.js';

/**
 * The README's five-minute tour, and the walk-throughs of the guides it leads to, run as printed:
 * their shell blocks, parsed from the Markdown, in order, in one bash session, in a temporary
 * folder holding a fresh demo store's `data/` (the server started on it with its generated
 * certificate, on a free port that replaces 8443). After each block the test checks that it shows
 * what the text says it shows. `npm run --silent admin -- ...` runs the operator CLI from the
 * sources (a stand-in `npm` on the PATH), so nothing is built. A block added, removed or changed
 * without its check fails here.
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DOCUMENTED_BASE = 'https://127.0.0.1:8443';
/** Printed between blocks, to split the session's output. */
const MARK = '@@readme-block-end@@';

interface Block {
  /** Where it is: the file and the heading above it. */
  where: string;
  code: string;
}

/** The ```sh blocks of a Markdown file, each with the heading above it. */
function shellBlocks(file: string): Block[] {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  const blocks: Block[] = [];
  let heading = '';
  let code: string[] | undefined;
  for (const line of text.split('\n')) {
    if (code !== undefined) {
      if (line.startsWith('```')) {
        blocks.push({ where: `${file} § ${heading}`, code: code.join('\n') });
        code = undefined;
      } else {
        code.push(line);
      }
    } else if (line.startsWith('```sh')) {
      code = [];
    } else if (line.startsWith('#')) {
      heading = line.replace(/^#+\s*/, '');
    }
  }
  return blocks;
}

/** What a block printed, and a check of it. */
type Check = (out: string, seen: Record<string, string>) => void;

/** Each JSON document in the output (one a line, as the session prints them; other lines are skipped). */
function jsonLines(out: string): unknown[] {
  return out
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.startsWith('{') || line.startsWith('['))
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as unknown];
      } catch {
        return []; // the first line of a value node -p printed over several lines
      }
    });
}

function lines(out: string): string[] {
  return out
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

describe(
  'the README tour and the guides’ walk-throughs, run as printed',
  // It runs bash, curl and the operator CLI as processes.
  { timeout: 240_000, skip: SKIP_IN_UNIT_RUN },
  () => {
    let folder: string;
    let server: RunningServer;

    before(async () => {
      folder = fs.mkdtempSync(path.join(os.tmpdir(), 'cp-readme-'));
      const env = {
        DATA_DIR: path.join(folder, 'data'),
        PORT: '0',
        DEMO_DATA: 'on',
        LOG_LEVEL: 'silent',
        PASSWORD_SCRYPT_LOG2N: '12',
      };
      server = await startServer(loadConfig(env));
      assert.ok(server.demo, 'a fresh store gets the demo');
      assert.ok(server.url.startsWith('https://127.0.0.1:'), server.url);
      // `npm run --silent admin -- ...`: the operator CLI, from the sources, on the same store.
      const bin = path.join(folder, 'bin');
      fs.mkdirSync(bin);
      fs.writeFileSync(
        path.join(bin, 'npm'),
        [
          '#!/bin/sh',
          'if [ "$1 $2 $3 $4" = "run --silent admin --" ]; then',
          '  shift 4',
          `  cd ${JSON.stringify(ROOT)} && exec node --import tsx src/cli/admin.ts "$@"`,
          'fi',
          'echo "this test runs only npm run --silent admin -- ..." >&2',
          'exit 2',
        ].join('\n'),
        { mode: 0o755 },
      );
    });

    after(async () => {
      await server?.shutdown();
      fs.rmSync(folder, { recursive: true, force: true });
    });

    it('shows what each block says it shows, in order, on a fresh demo store', async () => {
      const readme = shellBlocks('README.md');
      // The first block is how to start (npm ci && npm start: the server above); the tour follows.
      assert.match(readme[0]?.code ?? '', /npm ci && npm start/);
      const tour = readme.slice(1);
      const guide = (file: string, has: string) => {
        const found = shellBlocks(file).filter((block) => block.code.includes(has));
        assert.equal(found.length, 1, `one block of ${file} has ${has}`);
        return found[0] as Block;
      };
      const orderId = (seen: Record<string, string>) => seen.ORDER_ID ?? '';

      /** The blocks to run, in order, each with its check. */
      const steps: [Block, Check][] = [
        [
          tour[0] as Block,
          (out) => {
            const [health, me] = jsonLines(out) as [{ status: string }, { email: string }];
            assert.deepEqual(health, { status: 'ok' });
            assert.equal(me.email, 'demo@example.com');
          },
        ],
        [tour[1] as Block, (out) => assert.equal(out.trim(), '', 'defining the functions prints nothing')],
        [
          tour[2] as Block,
          (out) => {
            assert.match(out, /^x-request-id: \S+/im);
            assert.match(out, /^x-service-version: 2027-01-20/im);
            assert.match(out, /^ratelimit-policy: "hourly"/im);
            assert.match(out, /^ratelimit: "hourly";r=\d+/im);
          },
        ],
        [
          tour[3] as Block,
          (out, seen) => {
            const [list] = jsonLines(out) as [{ data: { price: number; stock: number }[] }];
            assert.equal(list.data.length, 3);
            assert.ok(list.data.every((p) => p.stock > 0));
            const prices = list.data.map((p) => p.price);
            assert.deepEqual(
              prices,
              [...prices].sort((a, b) => b - a),
              'dearest first',
            );
            const id = lines(out).find((line) => /^prod_\w+$/.test(line));
            assert.ok(id, 'the new product id is echoed');
            seen.PRODUCT_ID = id;
            const variants = out.match(/'[^'\n]+ \d+'/g) ?? [];
            assert.ok(variants.length >= 2, 'the tee’s variants with their stock');
          },
        ],
        [
          tour[4] as Block,
          (out, seen) => {
            assert.match(out, /^HTTP\/[\d.]+ 201/m);
            assert.match(out, /^idempotent-replayed: true/im);
            const shipped = jsonLines(out).find(
              (doc) => (doc as { status?: string }).status === 'shipped',
            ) as { id: string; carrier: string } | undefined;
            assert.ok(shipped, 'the order ships');
            assert.equal(shipped.carrier, 'UPS');
            seen.ORDER_ID = shipped.id;
            assert.equal(lines(out).at(-1), '3', 'the stock shows the 2 units reserved');
          },
        ],
        [
          tour[5] as Block,
          (out) => {
            const [now, old] = jsonLines(out) as [Record<string, unknown>, Record<string, unknown>];
            assert.ok(typeof now.available === 'number' && now.available > 0);
            assert.equal(now.pending, 0);
            assert.equal(old.balance, now.available, 'the older shape: balance');
            assert.equal('available' in old, false);
          },
        ],
        [tour[6] as Block, (out) => assert.equal(out.trim(), 'succeeded', 'the transfer to the new store')],
        [
          tour[7] as Block,
          (out, seen) => {
            assert.deepEqual(lines(out), ['refunded', '5', `[ '${orderId(seen)}' ]`]);
          },
        ],
        [
          tour[8] as Block,
          (out) => {
            const [problem] = jsonLines(out) as [{ status: number; errors: { field: string }[] }];
            assert.equal(problem.status, 400);
            assert.deepEqual([...new Set(problem.errors.map((e) => e.field))].sort(), [
              'colour',
              'name',
              'price',
            ]);
          },
        ],
        [
          tour[9] as Block,
          (out) => {
            assert.match(out, /orders: [1-9]\d*/, 'the four weeks have orders');
            assert.match(out, /revenue: [1-9]\d*/);
            const days = /^(\d+) days with orders$/m.exec(out);
            assert.ok(days && Number(days[1]) >= 5, 'the last two weeks, day by day');
            assert.match(out, /^product_id,/m, 'the CSV header');
            assert.match(out, /used: [1-9]\d*/, 'the calls of the tour count');
          },
        ],
        // products-and-orders.md: an order, then its lifecycle to a refund and the list by status.
        [
          guide('docs/products-and-orders.md', 'ORDER_ID=$('),
          (out, seen) => {
            const id = lines(out).find((line) => /^ord_\w+$/.test(line));
            assert.ok(id, 'the order id is echoed');
            seen.ORDER_ID = id;
          },
        ],
        [
          guide('docs/products-and-orders.md', '/refund'),
          (out, seen) => {
            const docs = jsonLines(out) as { status?: string; data?: { id: string }[] }[];
            assert.deepEqual(
              docs.slice(0, 2).map((doc) => doc.status),
              ['shipped', 'refunded'],
            );
            assert.deepEqual(
              docs[2]?.data?.map((order) => order.id),
              [orderId(seen)],
              'the refunded order, by its new status',
            );
          },
        ],
        // wallet.md: balances, transactions, another store made to pay, the transfer and the list.
        [
          guide('docs/wallet.md', 'wallet/transfer"'),
          (out) => {
            const docs = jsonLines(out) as Record<string, unknown>[];
            const transfer = docs.find((doc) => doc.status === 'succeeded' && doc.amount === 2500);
            assert.ok(transfer, 'the transfer succeeded');
            const list = docs.at(-1) as { data: { id: string }[] };
            assert.equal(list.data[0]?.id, transfer.id, 'the transfer is the newest');
          },
        ],
        // analytics.md: the demo's four weeks by week are not empty.
        [
          guide('docs/analytics.md', 'interval=week'),
          (out) => {
            const [, weeks] = jsonLines(out) as [
              unknown,
              { summary: { orders: number }; timeseries: unknown[] },
            ];
            assert.ok(weeks.summary.orders > 0, 'the demo’s orders are in the period');
            assert.ok(weeks.timeseries.length >= 4);
          },
        ],
        // console.md: a session from the command line, its cookie jar in a temporary folder.
        [
          guide('docs/console.md', '/console/api/login'),
          (out) => {
            const docs = jsonLines(out) as Record<string, unknown>[];
            assert.ok(
              docs.some((doc) => typeof doc.key === 'string' && doc.name === 'CI'),
              'the key is made',
            );
            assert.equal(
              (docs.at(-1) as { status: number }).status,
              401,
              'the cookie alone is no credential',
            );
            assert.equal(fs.existsSync(path.join(folder, 'console.jar')), false);
            assert.equal(fs.existsSync(path.join(ROOT, 'console.jar')), false);
          },
        ],
        // storefront.md: a publishable key and its catalog, a cart priced in full, its completion.
        [
          guide('docs/storefront.md', '"name":"Walk-through"'),
          (out, seen) => {
            assert.equal(
              lines(out)[0],
              'publishable_key_not_allowed',
              'the key opens the store’s routes only',
            );
            assert.match(out, /'organic-cotton-tee \d+ true'/);
            const variant = lines(out).find((line) => /^var_\w+$/.test(line));
            assert.ok(variant, 'the variant id is echoed');
            seen.VARIANT = variant;
          },
        ],
        [
          guide('docs/storefront.md', 'CART=$(shop'),
          (out, seen) => {
            assert.match(out, /^\[ '.+ x2' \]$/m, 'the same variant again: one line of two');
            const [cart] = jsonLines(out) as [
              {
                id: string;
                lines: { variant_id: string; quantity: number }[];
                shipping_rate_id: string | null;
                subtotal: number;
                discount_total: number;
                shipping_total: number;
                tax_total: number;
                total: number;
                problems: unknown[];
              },
            ];
            assert.deepEqual(cart.problems, []);
            assert.deepEqual(
              cart.lines.map((line) => [line.variant_id, line.quantity]),
              [[seen.VARIANT, 2]],
            );
            assert.match(cart.shipping_rate_id ?? '', /^shr_/);
            assert.ok(cart.shipping_total > 0 && cart.tax_total > 0, 'shipping and tax are priced');
            assert.equal(
              cart.total,
              cart.subtotal - cart.discount_total + cart.shipping_total + cart.tax_total,
            );
            seen.CART = cart.id;
            seen.TOTAL = String(cart.total);
          },
        ],
        [
          guide('docs/storefront.md', `"expected_total":'$TOTAL'`),
          (out, seen) => {
            assert.equal(lines(out)[0], 'cart_changed', 'another total charges nothing');
            const [order] = jsonLines(out) as [
              { id: string; status: string; total: number; source: string; cart_id: string },
            ];
            assert.deepEqual(
              [order.status, order.total, order.source, order.cart_id],
              ['paid', Number(seen.TOTAL), 'storefront', seen.CART],
            );
            assert.equal(lines(out).at(-1), 'completed');
          },
        ],
        // test-mode.md: a test key, its product unseen by the live key; test money, a copy, a reset.
        [
          guide('docs/test-mode.md', 'TEST_KEY=$('),
          (out) => assert.deepEqual(lines(out), ['sk_test_', 'false', 'not_found']),
        ],
        [
          guide('docs/test-mode.md', 'wallet/fund'),
          (out) =>
            assert.deepEqual(lines(out), ['100000', 'wrong_mode', 'true', 'true', '0', 'true', 'false']),
        ],
      ];
      assert.equal(tour.length, 10, 'every block of the tour has its check here');

      const base = server.url;
      const script = [
        // Each answer on its own line, as the checks read them (the tour's `api` prints one too).
        'curl() { command curl "$@"; local rc=$?; echo; return $rc; }',
        ...steps.map(([block]) => `${block.code.replaceAll(DOCUMENTED_BASE, base)}\necho '${MARK}'`),
      ].join('\n');
      const { stdout, stderr, code } = await runBash(script, folder);
      const outputs = stdout.split(`${MARK}\n`);
      assert.equal(
        outputs.length,
        steps.length + 1,
        `the session ran every block (exit ${code}):\n${stderr}`,
      );
      const seen: Record<string, string> = {};
      steps.forEach(([block, check], i) => {
        const out = outputs[i] ?? '';
        try {
          check(out, seen);
        } catch (error) {
          throw new Error(
            `${block.where}:\n${block.code}\n--- printed:\n${out}\n--- stderr:\n${stderr}\n--- ${String(error)}`,
          );
        }
      });
    });
  },
);

/** Runs `script` in bash in `cwd` (the stand-in npm first on the PATH), asynchronously: the server is in this process. */
function runBash(
  script: string,
  cwd: string,
): Promise<{ stdout: string; stderr: string; code: number | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', script], {
      cwd,
      env: {
        PATH: `${path.join(cwd, 'bin')}:${process.env.PATH ?? ''}`,
        HOME: cwd,
        DATA_DIR: path.join(cwd, 'data'),
        LOG_LEVEL: 'silent',
        PASSWORD_SCRYPT_LOG2N: '12',
      },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ stdout, stderr, code }));
  });
}
