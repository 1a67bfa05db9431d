import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  type Client,
  client,
  createTenant,
  createTestContext,
  LOGIC_ONLY,
  type TestContext,
} from '../../../test/helpers/context.js';
import type { OrProblem, Page, Problem } from '../../../test/helpers/responses.js';
import {
  eventually,
  type Receiver,
  selfSignedCert,
  startReceiver,
  type TlsPair,
} from '../../../test/helpers/webhook-receiver.js';
import type { DeliveryObject, WebhookObject } from './webhooks.presenter.js';
import { blockedReason, type ResolvedAddress, type Resolver, systemResolver } from './webhooks.url.js';

/**
 * SSRF defence with WEBHOOK_ALLOW_INSECURE off. Names are resolved by an injected resolver (no
 * network here); `localhost` goes to the system resolver, which answers it from the hosts file.
 */

const PUBLIC_V4 = '93.184.216.34';
const PUBLIC_V6 = '2606:2800:220:1:248:1893:25c8:1946';

describe('address classification', () => {
  it('allows public unicast addresses only', () => {
    for (const address of [PUBLIC_V4, '8.8.8.8', '1.1.1.1', PUBLIC_V6, '2a00:1450:4001:80b::200e']) {
      assert.equal(blockedReason(address), undefined, address);
    }
    const blocked: [string, RegExp][] = [
      ['127.0.0.1', /loopback/],
      ['127.255.0.9', /loopback/],
      ['::1', /loopback/],
      ['0.0.0.0', /unspecified/],
      ['::', /unspecified/],
      ['10.0.0.1', /private/],
      ['172.16.0.1', /private/],
      ['172.31.255.254', /private/],
      ['192.168.1.1', /private/],
      ['169.254.169.254', /link-local/],
      ['fe80::1', /link-local/],
      ['100.64.0.1', /carrier-grade NAT/],
      ['224.0.0.1', /multicast/],
      ['ff02::1', /multicast/],
      ['255.255.255.255', /broadcast/],
      ['240.0.0.1', /reserved/],
      ['192.0.2.1', /reserved/],
      ['198.18.0.1', /reserved/],
      ['fd00::1', /unique-local/],
      ['fc00::1', /unique-local/],
      ['::ffff:127.0.0.1', /IPv4-mapped/],
      ['::ffff:8.8.8.8', /IPv4-mapped/],
      ['::ffff:0:8.8.8.8', /IPv4-translated/],
      ['64:ff9b::8.8.8.8', /translation/],
      ['2002:7f00:1::', /6to4/],
      ['2001:0::1', /Teredo/],
      ['2001:db8::1', /reserved/],
      ['::7f00:1', /reserved/],
      ['not-an-ip', /not an IP/],
    ];
    for (const [address, reason] of blocked)
      assert.match(blockedReason(address) ?? 'allowed', reason, address);
  });
});

for (const dialect of LOGIC_ONLY) {
  describe(`webhook URL safety (${dialect})`, () => {
    let ctx: TestContext;
    let api: Client;
    let tls: TlsPair;
    const receivers: Receiver[] = [];
    /** What the fake DNS answers, per name; a function answers per call. */
    const zone = new Map<string, ResolvedAddress[] | (() => ResolvedAddress[])>();
    const lookups: string[] = [];
    const resolve: Resolver = async (hostname) => {
      lookups.push(hostname);
      if (hostname === 'localhost') return systemResolver(hostname);
      const answer = zone.get(hostname);
      if (!answer) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
      return typeof answer === 'function' ? answer() : answer;
    };
    const v4 = (address: string): ResolvedAddress => ({ address, family: 4 });
    const v6 = (address: string): ResolvedAddress => ({ address, family: 6 });

    before(async () => {
      tls = await selfSignedCert();
      ctx = await createTestContext(dialect, {
        env: { WEBHOOK_ALLOW_INSECURE: 'false', WEBHOOK_RETRY_SCHEDULE: '60' },
        webhooks: { resolve, ca: tls.cert },
      });
      api = client(ctx.app, (await createTenant(ctx)).apiKey.key);
      zone.set('hooks.example.test', [v4(PUBLIC_V4), v6(PUBLIC_V6)]);
      zone.set('mixed.example.test', [v4(PUBLIC_V4), v4('10.1.2.3')]);
      zone.set('inside.example.test', [v6('fd12:3456::1')]);
      zone.set('metadata.example.test', [v4('169.254.169.254')]);
      ctx.deps.webhookWorker.start();
    });
    after(async () => {
      await ctx.close();
      await Promise.all(receivers.map((r) => r.close()));
    });

    async function register(url: string) {
      return api<OrProblem<WebhookObject>>('POST', '/v1/webhooks', { body: { url, events: ['*'] } });
    }

    it('refuses non-https, credentials and every non-public address at registration', async () => {
      const refused = [
        'http://hooks.example.test/x',
        'https://localhost/x',
        'https://localhost:8443/x',
        'https://127.0.0.1/x',
        'https://[::1]/x',
        'https://[::ffff:127.0.0.1]/x',
        'https://2130706433/x',
        'https://0x7f.0.0.1/x',
        'https://0177.0.0.1/x',
        'https://127.1/x',
        'https://169.254.169.254/latest/meta-data',
        'https://10.0.0.1/x',
        'https://192.168.1.1/x',
        'https://172.16.0.1/x',
        'https://[fd00::1]/x',
        'https://100.64.0.1/x',
        'https://0.0.0.0/x',
        'https://[::]/x',
        'https://224.0.0.1/x',
        'https://user:pass@example.com/x',
        'https://user@hooks.example.test/x',
        'https://mixed.example.test/x',
        'https://inside.example.test/x',
        'https://metadata.example.test/x',
        'https://nowhere.example.test/x',
        'ftp://hooks.example.test/x',
        'javascript:alert(1)',
      ];
      for (const url of refused) {
        const res = await register(url);
        assert.equal(res.status, 422, `${url} -> ${res.status} ${JSON.stringify(res.body)}`);
        assert.equal(res.body.code, 'invalid_webhook_url', url);
      }
      assert.match(
        (await register('https://mixed.example.test/x')).body.detail,
        /10\.1\.2\.3 is a private address/,
      );
      const list = await api<Page<WebhookObject>>('GET', '/v1/webhooks');
      assert.equal(list.body.total, 0);
    });

    it('accepts an https URL whose every address is public, and checks a changed URL again', async () => {
      const res = await register('https://hooks.example.test/in');
      assert.equal(res.status, 201, JSON.stringify(res.body));
      const patched = await api<Problem>('PATCH', `/v1/webhooks/${res.body.id}`, {
        body: { url: 'https://[::ffff:7f00:1]/x' },
      });
      assert.equal(patched.status, 422);
      assert.equal(patched.body.code, 'invalid_webhook_url');
      const metadata = await api<Problem>('PATCH', `/v1/webhooks/${res.body.id}`, {
        body: { url: 'https://metadata.example.test/x' },
      });
      assert.equal(metadata.status, 422);
      assert.equal(
        (await api<WebhookObject>('GET', `/v1/webhooks/${res.body.id}`)).body.url,
        'https://hooks.example.test/in',
      );
    });

    it('blocks a name that resolves to 127.0.0.1 only at send time (DNS rebinding)', async () => {
      const rx = await startReceiver(undefined, { tls });
      receivers.push(rx);
      let calls = 0;
      zone.set('rebind.example.test', () => (calls++ === 0 ? [v4(PUBLIC_V4)] : [v4('127.0.0.1')]));
      const res = await register(`https://rebind.example.test:${rx.port}/hook`);
      assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.equal(calls, 1);
      await api('POST', `/v1/webhooks/${res.body.id}/test`);
      const entry = await eventually(async () => {
        const log = await api<Page<DeliveryObject>>('GET', `/v1/webhooks/${res.body.id}/deliveries`);
        return log.body.data.find((d) => d.attempt === 1 && d.status === 'failed');
      });
      assert.match(
        entry.response ?? '',
        /^Blocked: rebind\.example\.test resolves to a non-public address \(127\.0\.0\.1 is a loopback address\)$/,
      );
      assert.equal(entry.response_status, null);
      assert.ok(calls >= 2, 'the connection resolved the name itself');
      assert.equal(rx.received.length, 0, 'nothing reached the local receiver');
      assert.equal((await api<WebhookObject>('GET', `/v1/webhooks/${res.body.id}`)).body.status, 'Degraded');
    });

    it('checks an IP-literal URL again at send time', async () => {
      // A name answering 127.0.0.1 from the start is refused at registration; an endpoint whose
      // stored URL is a loopback literal (as from an older policy) is blocked when sending.
      zone.set('local.example.test', [v4('127.0.0.1')]);
      assert.equal((await register('https://local.example.test/x')).status, 422);
      const rx = await startReceiver(undefined, { tls });
      receivers.push(rx);
      const res = await register('https://hooks.example.test/literal');
      assert.equal(res.status, 201);
      await ctx.deps.store.db
        .updateTable('webhook_endpoints')
        .set({ url: `https://127.0.0.1:${rx.port}/literal` })
        .where('id', '=', res.body.id)
        .execute();
      await api('POST', `/v1/webhooks/${res.body.id}/test`);
      const entry = await eventually(async () => {
        const log = await api<Page<DeliveryObject>>('GET', `/v1/webhooks/${res.body.id}/deliveries`);
        return log.body.data.find((d) => d.attempt === 1 && d.status === 'failed');
      });
      assert.equal(entry.response, 'Blocked: 127.0.0.1 is a loopback address');
      assert.equal(rx.received.length, 0);
    });
  });

  describe(`webhook delivery over https with WEBHOOK_ALLOW_INSECURE (${dialect})`, () => {
    let ctx: TestContext;
    let rx: Receiver;

    before(async () => {
      const tls = await selfSignedCert();
      rx = await startReceiver(undefined, { tls });
      ctx = await createTestContext(dialect, { webhooks: { ca: tls.cert } });
      ctx.deps.webhookWorker.start();
    });
    after(async () => {
      await ctx.close();
      await rx.close();
    });

    it('delivers to an https receiver and verifies its certificate', async () => {
      const api = client(ctx.app, (await createTenant(ctx)).apiKey.key);
      const hook = await api<WebhookObject>('POST', '/v1/webhooks', {
        body: { url: `https://localhost:${rx.port}/secure`, events: ['*'] },
      });
      assert.equal(hook.status, 201);
      await api('POST', `/v1/webhooks/${hook.body.id}/test`);
      const [got] = await rx.waitFor(1);
      assert.equal(got?.path, '/secure');
      await eventually(async () => {
        const log = await api<Page<DeliveryObject>>('GET', `/v1/webhooks/${hook.body.id}/deliveries`);
        return log.body.data[0]?.response === '200 OK';
      });
    });

    it('fails a delivery to a receiver whose certificate is not trusted', async () => {
      const untrusted = await startReceiver(undefined, { tls: await selfSignedCert() });
      try {
        const api = client(ctx.app, (await createTenant(ctx)).apiKey.key);
        const hook = await api<WebhookObject>('POST', '/v1/webhooks', {
          body: { url: `https://localhost:${untrusted.port}/untrusted`, events: ['*'] },
        });
        await api('POST', `/v1/webhooks/${hook.body.id}/test`);
        const entry = await eventually(async () => {
          const log = await api<Page<DeliveryObject>>('GET', `/v1/webhooks/${hook.body.id}/deliveries`);
          return log.body.data.find((d) => d.attempt === 1 && d.status === 'failed');
        });
        assert.match(entry.response ?? '', /certificate/i);
        assert.equal(untrusted.received.length, 0);
      } finally {
        await untrusted.close();
      }
    });
  });
}
