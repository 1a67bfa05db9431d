import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Agent, request } from 'undici';
import { scryptDerivations } from '../../src/lib/passwords.js';
import type { ApiKey } from '../../src/modules/api-keys/api-keys.schemas.js';
import { KEY_FAILURES } from '../../src/modules/api-keys/api-keys.service.js';
import { THROTTLE } from '../../src/modules/console/console.service.js';
import { randomBase62 } from '../../src/lib/ids.js';
import { createTestContext, DIALECTS, type TestContext } from '../helpers/context.js';

/**
 * Hostile clients against the credentials, over a real socket: guessing a console password,
 * spraying guesses over emails, telling known emails from unknown ones, a narrow key revoking a
 * fuller one, and a flood of unknown API keys. Each client connects from its own loopback address
 * (127.0.0.0/8 is all loopback on Linux), so the server sees it as `request.ip`. Bounded: a fixed
 * number of requests per case.
 */

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown> | undefined;
}

interface Send {
  (
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    options?: { body?: unknown; key?: string },
  ): Promise<Answer>;
}

type KeyBody = ApiKey;

const PASSWORD = 'correct horse battery';

for (const dialect of DIALECTS) {
  describe(`hostile clients against the credentials (${dialect})`, () => {
    let ctx: TestContext;
    let origin: string;
    const agents: Agent[] = [];
    let emails = 0;
    const newEmail = () => `owner${(emails += 1)}-${randomBase62(6).toLowerCase()}@example.com`;

    /** A client whose connections come from `address`. */
    function from(address: string): Send {
      const agent = new Agent({ localAddress: address });
      agents.push(agent);
      return async (method, path, options = {}) => {
        const headers: Record<string, string> = {};
        if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`;
        if (options.body !== undefined) headers['content-type'] = 'application/json';
        const res = await request(`${origin}${path}`, {
          method,
          dispatcher: agent,
          headers,
          ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
        });
        const text = await res.body.text();
        return {
          status: res.statusCode,
          headers: res.headers,
          body: text === '' ? undefined : (JSON.parse(text) as Record<string, unknown>),
        };
      };
    }

    async function signup(client: Send, email: string): Promise<{ apiKey: { id: string; key: string } }> {
      const res = await client('POST', '/console/api/signup', {
        body: { store_name: 'Hostile Goods', email, password: PASSWORD },
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      const apiKey = res.body?.api_key as { id: string; key: string; permissions: string[] };
      return { apiKey };
    }

    before(async () => {
      ctx = await createTestContext(dialect);
      origin = await ctx.app.listen({ port: 0, host: '127.0.0.1' });
    });
    after(async () => {
      await Promise.all(agents.map((agent) => agent.close()));
      await ctx.close();
    });

    // First in the file's context: the first unknown email this server sees costs no more either.
    it('runs exactly one scrypt for an unknown email and for a known email with a wrong password', async () => {
      const email = newEmail();
      const owner = from('127.0.0.9');
      const prober = from('127.0.0.10');
      const probe = async (body: { email: string; password: string }) => {
        const before = scryptDerivations();
        const res = await prober('POST', '/console/api/login', { body });
        return {
          status: res.status,
          detail: res.body?.detail,
          code: res.body?.code,
          scrypts: scryptDerivations() - before,
        };
      };
      const refused = {
        status: 401,
        detail: 'The email or password is incorrect.',
        code: 'authentication_required',
        scrypts: 1,
      };
      assert.deepEqual(await probe({ email: newEmail(), password: PASSWORD }), refused);
      await signup(owner, email);
      assert.deepEqual(await probe({ email, password: 'not the password' }), refused);
      assert.deepEqual(await probe({ email: newEmail(), password: 'not the password' }), refused);
    });

    it('signs the owner in from their own address while an attacker hammers their email', async () => {
      const email = newEmail();
      const owner = from('127.0.0.11');
      const attacker = from('127.0.0.12');
      await signup(owner, email);
      const attempts = 25;
      const ownerLogins: number[] = [];
      const attack = async () => {
        const statuses: number[] = [];
        for (let i = 0; i < attempts; i++) {
          const res = await attacker('POST', '/console/api/login', {
            body: { email, password: `guess-${i}` },
          });
          statuses.push(res.status);
          if (res.status === 429) {
            assert.equal(res.body?.code, 'rate_limited');
            assert.ok(Number(res.headers['retry-after']) > 0, 'Retry-After in seconds');
          }
        }
        return statuses;
      };
      const signIn = async () => {
        for (let i = 0; i < 3; i++) {
          const res = await owner('POST', '/console/api/login', { body: { email, password: PASSWORD } });
          ownerLogins.push(res.status);
          assert.ok(res.headers['set-cookie'], 'a session cookie');
        }
      };
      const [statuses] = await Promise.all([attack(), signIn()]);
      const { limit } = THROTTLE.loginPerPair;
      assert.deepEqual(statuses, [
        ...Array.from({ length: limit }, () => 401),
        ...Array.from({ length: attempts - limit }, () => 429),
      ]);
      // Never locked out, during the attack or after it.
      await signIn();
      assert.deepEqual(ownerLogins, [200, 200, 200, 200, 200, 200]);
      // The attacker's address waits even with the right password: the throttle is no oracle.
      const right = await attacker('POST', '/console/api/login', { body: { email, password: PASSWORD } });
      assert.equal(right.status, 429);
    });

    it('throttles an address spraying guesses over many emails, not the accounts', async () => {
      const email = newEmail();
      const owner = from('127.0.0.13');
      const sprayer = from('127.0.0.14');
      await signup(owner, email);
      const { limit } = THROTTLE.loginPerAddress;
      const statuses: number[] = [];
      for (let i = 0; i < limit + 3; i++) {
        const target = i % 10 === 0 ? email : newEmail();
        statuses.push(
          (await sprayer('POST', '/console/api/login', { body: { email: target, password: 'guess' } }))
            .status,
        );
      }
      assert.deepEqual(statuses, [
        ...Array.from({ length: limit }, () => 401),
        ...Array.from({ length: 3 }, () => 429),
      ]);
      const blocked = await sprayer('POST', '/console/api/login', { body: { email, password: PASSWORD } });
      assert.equal(blocked.status, 429);
      assert.ok(Number(blocked.headers['retry-after']) > 0);
      const res = await owner('POST', '/console/api/login', { body: { email, password: PASSWORD } });
      assert.equal(res.status, 200);
    });

    it("refuses a narrow key's revoke of a fuller key and changes nothing", async () => {
      const client = from('127.0.0.15');
      const { apiKey: full } = await signup(client, newEmail());
      const manager = await client('POST', '/v1/api-keys', {
        key: full.key,
        body: { name: 'Key manager', permissions: ['read:keys', 'write:keys'] },
      });
      assert.equal(manager.status, 201, JSON.stringify(manager.body));
      const managerKey = manager.body?.key as string;
      // The keys that work, and what each may do (last_used moves with every call, so it is left out).
      const listed = async () =>
        ((await client('GET', '/v1/api-keys?limit=100', { key: full.key })).body?.data as KeyBody[]).map(
          ({ id, permissions, status, expires_at }) => ({ id, permissions, status, expires_at }),
        );
      const before = await listed();
      const refused = await client('DELETE', `/v1/api-keys/${full.id}`, { key: managerKey });
      assert.equal(refused.status, 403);
      assert.equal(refused.body?.code, 'insufficient_permissions');
      // Named: the full key's first permission the manager lacks (in the modules' order).
      const held = before.find(({ id }) => id === full.id)?.permissions ?? [];
      const missing = held.find((permission) => permission !== 'read:keys' && permission !== 'write:keys');
      assert.ok(missing);
      assert.equal(refused.body?.required_permission, missing);
      assert.deepEqual(await listed(), before);
      assert.equal((await client('GET', '/v1/users/me', { key: full.key })).status, 200);
    });

    it('turns 200 unknown keys from one address into 429 after the threshold; a valid key keeps getting 200', async () => {
      const { apiKey } = await signup(from('127.0.0.16'), newEmail());
      const attacker = from('127.0.0.17');
      const neighbour = from('127.0.0.18');
      assert.equal((await attacker('GET', '/v1/users/me', { key: apiKey.key })).status, 200);
      const unknown: number[] = [];
      const valid: number[] = [];
      for (let i = 0; i < 200; i++) {
        const res = await attacker('GET', '/v1/users/me', { key: `sk_live_${randomBase62(40)}` });
        unknown.push(res.status);
        if (res.status === 429) {
          assert.equal(res.body?.code, 'rate_limited');
          assert.ok(Number(res.headers['retry-after']) > 0, 'Retry-After in seconds');
        }
        if (i % 10 === 9) valid.push((await attacker('GET', '/v1/users/me', { key: apiKey.key })).status);
      }
      const { limit } = KEY_FAILURES;
      assert.deepEqual(unknown, [
        ...Array.from({ length: limit }, () => 401),
        ...Array.from({ length: 200 - limit }, () => 429),
      ]);
      assert.deepEqual(
        valid,
        Array.from({ length: 20 }, () => 200),
      );
      // Another address presenting an unknown key is answered as ever.
      assert.equal(
        (await neighbour('GET', '/v1/users/me', { key: `sk_live_${randomBase62(40)}` })).status,
        401,
      );
    });
  });
}

describe('unknown keys behind a reverse proxy (TRUST_PROXY)', () => {
  const { limit } = KEY_FAILURES;
  /** `limit` + 1 unknown keys from `attacker`, then one from `bystander`, both through the proxy. */
  async function floodThroughProxy(trustProxy: string | undefined) {
    const ctx = await createTestContext('sqlite', { env: trustProxy ? { TRUST_PROXY: trustProxy } : {} });
    try {
      const send = (client: string) =>
        ctx.app.inject({
          method: 'GET',
          url: '/v1/users/me',
          remoteAddress: '127.0.0.1',
          headers: { authorization: `Bearer sk_live_${randomBase62(40)}`, 'x-forwarded-for': client },
        });
      const attacker: number[] = [];
      for (let i = 0; i <= limit; i++) attacker.push((await send('203.0.113.7')).statusCode);
      return { attacker, bystander: (await send('198.51.100.9')).statusCode };
    } finally {
      await ctx.close();
    }
  }

  it('counts each client by its forwarded address when the proxy is trusted', async () => {
    const { attacker, bystander } = await floodThroughProxy('loopback');
    assert.deepEqual(attacker, [...Array<number>(limit).fill(401), 429]);
    assert.equal(bystander, 401, 'another client behind the same proxy is not throttled');
  });

  it('counts every client as the proxy when it is not (so the operator must name it)', async () => {
    const { attacker, bystander } = await floodThroughProxy(undefined);
    assert.equal(attacker.at(-1), 429);
    assert.equal(bystander, 429);
  });
});
