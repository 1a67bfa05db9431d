import { performance } from 'node:perf_hooks';
import type { PluginsTable } from '../../db/schema.js';
import type { Store } from '../../db/store.js';
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../lib/logger.js';
import type { AttemptResult, Transport } from '../webhooks/index.js';
import { autowriter } from './apps.autowriter.js';
import * as repo from './apps.repository.js';
import { openToken, sealToken, verifySignature } from './apps.secrets.js';
import { soldOutHider } from './apps.sold-out-hider.js';

/**
 * The first-party apps, run inside the worker (src/worker.ts, or the server when it runs alone)
 * through the mechanism every app uses: their deliveries come from the webhook worker, signed with
 * their secret (only the transport differs: a URL `internal://first-party/<name>` is handed to the
 * app in process instead of over the network); `app.installed` gives them their installation token,
 * which they keep encrypted; and they act by calling the HTTP API with that token (through the
 * app's own request handling, `inject`), so every call passes the gate, the permission checks,
 * the tenant's limits and metering like any other key's. Nothing here reaches into a service.
 */

export const INTERNAL_URL_PREFIX = 'internal://first-party/';

/** One request to the API: its status and parsed JSON body. */
export interface ApiReply {
  status: number;
  body: unknown;
}

/** Calls `/v1` with a token; `idempotencyKey` makes a retried delivery's write happen once. */
export type ApiCall = (
  token: string,
  method: 'GET' | 'POST' | 'PATCH',
  path: string,
  body?: unknown,
  idempotencyKey?: string,
) => Promise<ApiReply>;

/** The API as one installation sees it. */
export interface InstallationApi {
  call(
    method: 'GET' | 'POST' | 'PATCH',
    path: string,
    body?: unknown,
    idempotencyKey?: string,
  ): Promise<ApiReply>;
}

/** What an app keeps for itself per store (the Sold-out hider's "I hid this product"). */
export interface Marks {
  add(mark: string): Promise<void>;
  has(mark: string): Promise<boolean>;
  remove(mark: string): Promise<void>;
}

/** A delivered event, as its payload says (a plugin's deliveries name their installation). */
export interface DeliveredEvent {
  id: string;
  type: string;
  installation_id?: string;
  tenant_id?: string;
  data: { object: Record<string, unknown> } & Record<string, unknown>;
}

export interface AppHandler {
  /** Acts on one store event; throwing fails the delivery, which is then retried. */
  handle(event: DeliveredEvent, api: InstallationApi, marks: Marks): Promise<void>;
}

const HANDLERS: Record<string, AppHandler> = {
  'ai-autowriter': autowriter,
  'sold-out-hider': soldOutHider,
};

/** A failure the delivery log shows (`status` and text), answered instead of a 2xx. */
class Refusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** An `ApiCall` through a Fastify app's `inject`: the full request path, no network. */
export function injectCaller(app: {
  inject(options: {
    method: 'GET' | 'POST' | 'PATCH';
    url: string;
    headers: Record<string, string>;
    payload?: string;
  }): PromiseLike<{ statusCode: number; body: string }>;
}): ApiCall {
  return async (token, method, path, body, idempotencyKey) => {
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
    const res = await app.inject({
      method,
      url: `/v1${path}`,
      headers,
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
    let parsed: unknown = null;
    try {
      parsed = res.body === '' ? null : JSON.parse(res.body);
    } catch {
      parsed = res.body;
    }
    return { status: res.statusCode, body: parsed };
  };
}

export type AppRuntime = ReturnType<typeof createAppRuntime>;

export function createAppRuntime(deps: { store: Store; clock: Clock; logger: Logger }) {
  const { store, clock, logger } = deps;
  let api: ApiCall | undefined;

  async function pluginFor(runtime: string): Promise<PluginsTable | undefined> {
    return store.db.selectFrom('plugins').selectAll().where('runtime', '=', runtime).executeTakeFirst();
  }

  async function receive(url: string, headers: Record<string, string>, body: string): Promise<void> {
    const runtime = url.slice(INTERNAL_URL_PREFIX.length);
    const handler = HANDLERS[runtime];
    const plugin = await pluginFor(runtime);
    if (!handler || !plugin?.secret) throw new Refusal(404, `No first-party app at ${url}`);
    if (!verifySignature(plugin.secret, headers, body, clock.now()))
      throw new Refusal(401, 'The delivery signature does not verify');
    const event = JSON.parse(body) as DeliveredEvent;
    const object = event.data.object;
    const tenantId = String(object.tenant_id ?? '');
    if (event.type === 'app.installed') {
      if (typeof object.access_token !== 'string' || tenantId === '')
        throw new Refusal(400, 'app.installed without its token');
      await repo.saveToken(store.db, {
        installation_id: String(object.installation_id),
        plugin_id: plugin.id,
        tenant_id: tenantId,
        token_ciphertext: sealToken(plugin.secret, plugin.id, object.access_token),
        created: clock.now(),
      });
      return;
    }
    if (event.type === 'app.uninstalled') {
      await repo.forgetInstallation(store.db, String(object.installation_id), plugin.id, tenantId);
      return;
    }
    // A store event, for the installation the (signed) payload names.
    const kept =
      event.installation_id === undefined
        ? undefined
        : await repo.findToken(store.db, plugin.id, event.installation_id);
    if (!kept) throw new Refusal(503, 'Not installed yet: app.installed has not arrived');
    if (!api) throw new Refusal(503, 'The app runtime has no API to call yet');
    const token = openToken(plugin.secret, plugin.id, kept.token_ciphertext);
    const call = api;
    const marksTenant = kept.tenant_id;
    await handler.handle(
      event,
      { call: (method, path, payload, key) => call(token, method, path, payload, key) },
      {
        add: (mark) => repo.addMark(store.db, plugin.id, marksTenant, mark, clock.now()),
        has: (mark) => repo.hasMark(store.db, plugin.id, marksTenant, mark),
        remove: (mark) => repo.removeMark(store.db, plugin.id, marksTenant, mark),
      },
    );
  }

  return {
    /** The API the apps call: set once the HTTP app is built (`buildApp`). */
    attach(caller: ApiCall): void {
      api = caller;
    },

    /** Whether `url` is a first-party app's. */
    serves(url: string): boolean {
      return url.startsWith(INTERNAL_URL_PREFIX);
    },

    /** A delivery to a first-party app; never throws: the outcome is the delivery's result. */
    async deliver(url: string, headers: Record<string, string>, body: string): Promise<AttemptResult> {
      const started = performance.now();
      const duration = () => Math.round(performance.now() - started);
      try {
        await receive(url, headers, body);
        return { ok: true, status: 200, response: '200 OK', body: '{"ok":true}', duration: duration() };
      } catch (error) {
        const status = error instanceof Refusal ? error.status : 500;
        const message = error instanceof Error ? error.message : String(error);
        if (!(error instanceof Refusal)) logger.warn({ err: error, url }, 'first-party app delivery failed');
        return {
          ok: false,
          status,
          response: `${status} ${message}`.slice(0, 200),
          body: JSON.stringify({ error: message }).slice(0, 1024),
          duration: duration(),
        };
      }
    },
  };
}

/** The webhook transport, handing deliveries to first-party apps in process. */
export function withFirstPartyApps(transport: Transport, runtime: AppRuntime): Transport {
  return {
    send: (url, headers, body) =>
      runtime.serves(url) ? runtime.deliver(url, headers, body) : transport.send(url, headers, body),
    close: () => transport.close(),
  };
}
