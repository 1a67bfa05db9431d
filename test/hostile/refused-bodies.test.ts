import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import net from 'node:net';
import os from 'node:os';
import tls from 'node:tls';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { type RunningServer, startServer } from '../../src/server.js';
import { migratedStore, type TestStore } from '../helpers/context.js';

/**
 * Bodies the server refuses, sent as real clients send them, against a listening server. A
 * declared length over the route's limit is answered 413 at once, without `100 Continue` to a
 * client that waits for it. A client that writes its whole body before reading anything (Python's
 * urllib, a plain socket) or that reads while it writes (Node's fetch) gets its 413, 415 or 400
 * problem, not a reset: the server answers, then reads and drops the rest of the body before it
 * closes (a lingering close). The drain has bounds: a sender past the byte bound, or one
 * trickling a byte a second past the time bound, is cut off, and a draining connection holds its
 * place under the connection cap. The bodies are larger than what the kernel buffers between
 * client and server, so that without the drain the answer is lost; the drain's time bound is set
 * far past the test's needs where the test is not of it, so no outcome depends on timing.
 */

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

interface Problem {
  code: string;
  status: number;
  request_id: string;
}

const MIB = 1024 * 1024;
/** More than the socket buffers between client and server hold: it is all sent only if it is read. */
const JSON_BYTES = 16 * MIB;
/** Over an import's 50 MiB, under the drain's 64 MiB. */
const IMPORT_BYTES = 51 * MIB;
/** Uploads per client, one after another and as many at once. */
const UPLOADS = 20;
/** How long any one exchange of these tests may take before the test gives up on it. */
const EXCHANGE_DEADLINE_MS = 120_000;

const PYTHON = spawnSync('python3', ['--version'], { stdio: 'ignore' }).status === 0 ? 'python3' : undefined;

/** `{"name":"aaa…"}`, `bytes` long: JSON the products route would take, but for its size. */
function jsonBody(bytes: number): Buffer {
  const body = Buffer.alloc(bytes, 'a');
  body.write('{"name":"', 0, 'latin1');
  body.write('"}', bytes - 2, 'latin1');
  return body;
}

function parse(raw: Buffer): Answer | undefined {
  const text = raw.toString('latin1');
  const end = text.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine = '', ...lines] = text.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = Number(headers['content-length'] ?? text.length - end - 4);
  return {
    status: Number(statusLine.split(' ')[1]),
    headers,
    body: raw.subarray(end + 4, end + 4 + length).toString('utf8'),
  };
}

/**
 * A connection to `server` (TLS when it serves HTTPS, trusting its certificate), once usable.
 * `allowHalfOpen`: it goes on sending after the server closes its side, as a client busy sending
 * its body does, instead of closing its own side at once as Node's sockets do by default.
 */
function connect(server: RunningServer, options: { allowHalfOpen?: boolean } = {}): Promise<net.Socket> {
  const url = new URL(server.url);
  const port = Number(url.port);
  const ca = server.tls?.cert;
  const allowHalfOpen = options.allowHalfOpen ?? false;
  return new Promise((resolve, reject) => {
    const tcp = net.connect({ port, host: '127.0.0.1', allowHalfOpen });
    // Over TLS the TLS socket half-closes as its TCP socket does.
    const socket =
      ca === undefined
        ? tcp.once('connect', () => resolve(tcp))
        : tls.connect({ socket: tcp, host: '127.0.0.1', ca }, () => resolve(socket));
    socket.once('error', reject);
    socket.setTimeout(EXCHANGE_DEADLINE_MS, () => socket.destroy());
  });
}

/**
 * One request on its own connection, as most HTTP libraries send one: `head` and the whole `body`
 * written before a byte is read, then the answer read until the server closes. Undefined when the
 * connection failed first (a reset or a broken pipe), which loses the answer.
 */
async function writeThenRead(server: RunningServer, head: string, body: Buffer): Promise<Answer | undefined> {
  const socket = await connect(server, { allowHalfOpen: true });
  socket.pause();
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let failed = false;
    socket.on('error', () => (failed = true));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    // The answer is read: the client closes too.
    socket.once('end', () => socket.end());
    socket.once('close', () => resolve(failed ? undefined : parse(Buffer.concat(chunks))));
    socket.write(head);
    socket.write(body, (error) => {
      if (!error) socket.resume();
    });
  });
}

/** Asserts `answer` is the problem `code` with `status`, carrying its request id. */
function assertProblem(answer: Answer | undefined, status: number, code: string, label: string): void {
  assert.ok(answer, `${label}: the answer was lost (the connection was reset before it was read)`);
  assert.equal(answer.status, status, `${label}: ${answer.body}`);
  assert.match(answer.headers['content-type'] ?? '', /^application\/problem\+json/, label);
  const problem = JSON.parse(answer.body) as Problem;
  assert.equal(problem.code, code, label);
  assert.equal(problem.status, status, label);
  assert.equal(problem.request_id, answer.headers['x-request-id'], label);
}

/** `count` runs of `upload`, one after another, then `count` at once. */
async function sequentialAndConcurrent<T>(count: number, upload: () => Promise<T>): Promise<T[]> {
  const answers: T[] = [];
  for (let i = 0; i < count; i++) answers.push(await upload());
  answers.push(...(await Promise.all(Array.from({ length: count }, upload))));
  return answers;
}

function request(path: string, key: string, type: string, length: number, extra = ''): string {
  return `POST ${path} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${key}\r\nContent-Type: ${type}\r\nContent-Length: ${length}\r\nConnection: close\r\n${extra}\r\n`;
}

/**
 * Python's urllib: `count` uploads of a `bytes`-long JSON body to `url`, one after another, then
 * as many at once (threads); each one's status and problem, or the error that lost it.
 */
function pythonUploads(url: string, key: string, bytes: number, count: number): Promise<unknown[]> {
  const script = `
import concurrent.futures, json, sys, urllib.error, urllib.request
url, key, size, count = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
body = b'{"name":"' + b'a' * (size - 11) + b'"}'
def upload(_):
    request = urllib.request.Request(url, data=body, method='POST', headers={
        'Content-Type': 'application/json', 'Authorization': 'Bearer ' + key})
    try:
        with urllib.request.urlopen(request, timeout=${EXCHANGE_DEADLINE_MS / 1000}) as response:
            return {'status': response.status}
    except urllib.error.HTTPError as error:
        with error:
            return {'status': error.code, 'type': error.headers.get('Content-Type'),
                    'request_id': error.headers.get('X-Request-Id'), 'body': error.read().decode()}
    except Exception as error:
        return {'error': repr(error)}
answers = [upload(i) for i in range(count)]
with concurrent.futures.ThreadPoolExecutor(max_workers=count) as pool:
    answers += list(pool.map(upload, range(count)))
print(json.dumps(answers))
`;
  return new Promise((resolve, reject) => {
    const child = spawn(PYTHON ?? 'python3', ['-c', script, url, key, String(bytes), String(count)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0
        ? resolve(JSON.parse(out) as unknown[])
        : reject(new Error(`python3 exited ${code}: ${err}`)),
    );
  });
}

/** Checks what `pythonUploads` saw: every upload answered with its 413 problem. */
function assertPythonAnswers(answers: unknown[], label: string): void {
  for (const [index, raw] of answers.entries()) {
    const answer = raw as {
      status?: number;
      type?: string;
      request_id?: string;
      body?: string;
      error?: string;
    };
    assert.equal(answer.error, undefined, `${label} ${index}: ${answer.error}`);
    assertProblem(
      {
        status: answer.status ?? 0,
        headers: { 'content-type': answer.type ?? '', 'x-request-id': answer.request_id ?? '' },
        body: answer.body ?? '',
      },
      413,
      'payload_too_large',
      `${label} ${index}`,
    );
  }
}

/** Node's fetch: one upload of `body`, read as a problem, or undefined when the upload failed. */
async function fetchUpload(url: string, key: string, body: Buffer): Promise<Answer | undefined> {
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body,
    });
    return { status: res.status, headers: Object.fromEntries(res.headers), body: await res.text() };
  } catch {
    return undefined;
  }
}

/** Processes that keep every core busy until stopped (or for 2 minutes at most): the machine under load. */
function busyMachine(): { stop(): void } {
  const spin = 'const end = Date.now() + 120000; while (Date.now() < end);';
  const burners: ChildProcess[] = Array.from({ length: os.availableParallelism() }, () =>
    spawn(process.execPath, ['-e', spin], { stdio: 'ignore' }),
  );
  return {
    stop() {
      for (const burner of burners) burner.kill('SIGKILL');
    },
  };
}

async function tenantKey(server: RunningServer): Promise<string> {
  const created = await server.deps.tenants.create({
    name: 'Uploads',
    email: `uploads-${Date.now()}-${Math.random().toString(36).slice(2)}@example.com`,
    plan: 'enterprise',
  });
  await server.deps.tenants.setLimits(created.tenant.id, { hourly: 1_000_000, monthly: 1_000_000 });
  return created.apiKey.key;
}

for (const secure of [false, true]) {
  const scheme = secure ? 'HTTPS' : 'HTTP';

  describe(`refused bodies reach their client (${scheme})`, () => {
    let store: TestStore;
    let server: RunningServer;
    let key: string;

    before(async () => {
      store = await migratedStore('sqlite');
      server = await startServer(
        loadConfig({
          ...store.env,
          PORT: '0',
          TLS: secure ? 'on' : 'off',
          // Far past any upload here, even on a loaded machine: only the bytes decide.
          LINGER_TIMEOUT_MS: '600000',
          REQUEST_TIMEOUT_MS: '600000',
        }),
      );
      key = await tenantKey(server);
    });
    after(async () => {
      await server.shutdown();
      await store.drop();
    });

    it('answers Expect: 100-continue with an immediate 413 when Content-Length is over the route’s limit, and 100 Continue when it is not', async () => {
      /** What the server answers to `head` sent alone (the body is never sent), until it closes. */
      const answerTo = async (head: string) => {
        const socket = await connect(server);
        return new Promise<string>((resolve) => {
          let text = '';
          socket.on('data', (chunk: Buffer) => {
            text += chunk.toString('latin1');
            // A 100 Continue asks for the body this client will never send: that is the answer.
            if (text.startsWith('HTTP/1.1 100 ')) socket.destroy();
          });
          socket.on('error', () => undefined);
          socket.once('close', () => resolve(text));
          socket.write(head);
        });
      };
      for (const [path, type, length] of [
        ['/v1/products', 'application/json', 1 * MIB + 1],
        ['/v1/products', 'application/json', 10 * 1024 * MIB],
        ['/v1/imports?resource=products', 'text/csv', 50 * MIB + 1],
      ] as const) {
        const text = await answerTo(request(path, key, type, length, 'Expect: 100-continue\r\n'));
        const label = `${path} with ${length} bytes`;
        assert.match(text, /^HTTP\/1\.1 413 /, `${label}: ${text.slice(0, 40)}`);
        assertProblem(parse(Buffer.from(text, 'latin1')), 413, 'payload_too_large', label);
      }

      // Within the limit: 100 Continue, then the body, then the answer.
      const body = JSON.stringify({ name: 'Lamp', price: 100 });
      const socket = await connect(server);
      const text = await new Promise<string>((resolve) => {
        let seen = '';
        socket.on('data', (chunk: Buffer) => {
          const sentContinue = /^HTTP\/1\.1 100 Continue\r\n\r\n/.test(seen);
          seen += chunk.toString('latin1');
          if (!sentContinue && /^HTTP\/1\.1 100 Continue\r\n\r\n/.test(seen)) socket.write(body);
        });
        socket.once('close', () => resolve(seen));
        socket.write(
          request('/v1/products', key, 'application/json', body.length, 'Expect: 100-continue\r\n'),
        );
      });
      assert.match(text, /^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 201 /);
    });

    it(`answers ${UPLOADS} oversized bodies written before reading, one after another and at once, with their 413`, async () => {
      const body = jsonBody(JSON_BYTES);
      const head = request('/v1/products', key, 'application/json', body.length);
      const answers = await sequentialAndConcurrent(UPLOADS, () => writeThenRead(server, head, body));
      for (const [index, answer] of answers.entries()) {
        assertProblem(answer, 413, 'payload_too_large', `upload ${index}`);
        assert.equal(answer?.headers.connection, 'close');
      }
    });

    if (secure) return;

    it(`answers ${UPLOADS} oversized uploads from Node’s fetch, one after another and at once, with their 413`, async () => {
      const products = async () => {
        const list = await fetch(`${server.url}/v1/products`, {
          headers: { authorization: `Bearer ${key}` },
        });
        return ((await list.json()) as { data: unknown[] }).data.length;
      };
      const stored = await products();
      const body = jsonBody(JSON_BYTES);
      const answers = await sequentialAndConcurrent(UPLOADS, () =>
        fetchUpload(`${server.url}/v1/products`, key, body),
      );
      for (const [index, answer] of answers.entries()) {
        assertProblem(answer, 413, 'payload_too_large', `fetch ${index}`);
      }
      assert.equal(await products(), stored, 'nothing was stored');
    });

    it(`answers ${UPLOADS} oversized uploads from Python’s urllib, one after another and at once, with their 413`, async (t) => {
      if (PYTHON === undefined) {
        t.skip('python3 is not installed here');
        return;
      }
      const answers = await pythonUploads(`${server.url}/v1/products`, key, JSON_BYTES, UPLOADS);
      assert.equal(answers.length, 2 * UPLOADS);
      assertPythonAnswers(answers, 'urllib');
    });

    it('answers an import over 50 MiB, a body of another type and malformed JSON written before reading', async () => {
      const csv = Buffer.alloc(IMPORT_BYTES, 'handle\nmug\n');
      const imports = await sequentialAndConcurrent(3, () =>
        writeThenRead(server, request('/v1/imports?resource=products', key, 'text/csv', csv.length), csv),
      );
      for (const [index, answer] of imports.entries()) {
        assertProblem(answer, 413, 'payload_too_large', `import ${index}`);
      }
      const text = Buffer.alloc(JSON_BYTES, 'a');
      const typed = await sequentialAndConcurrent(3, () =>
        writeThenRead(server, request('/v1/products', key, 'text/plain', text.length), text),
      );
      for (const [index, answer] of typed.entries()) {
        assertProblem(answer, 415, 'unsupported_media_type', `text/plain ${index}`);
      }
      const importTyped = await writeThenRead(
        server,
        request('/v1/imports?resource=products', key, 'application/pdf', text.length),
        text,
      );
      assertProblem(importTyped, 415, 'unsupported_media_type', 'an import as application/pdf');
      const malformed = Buffer.alloc(MIB - 1, '{');
      const broken = await sequentialAndConcurrent(3, () =>
        writeThenRead(server, request('/v1/products', key, 'application/json', malformed.length), malformed),
      );
      for (const [index, answer] of broken.entries()) {
        assertProblem(answer, 400, 'invalid_json', `malformed ${index}`);
      }
    });

    it('answers every upload while every core is busy', async () => {
      const body = jsonBody(JSON_BYTES);
      const head = request('/v1/products', key, 'application/json', body.length);
      const busy = busyMachine();
      try {
        const [sockets, fetched, python] = await Promise.all([
          Promise.all(Array.from({ length: UPLOADS }, () => writeThenRead(server, head, body))),
          Promise.all(
            Array.from({ length: UPLOADS }, () => fetchUpload(`${server.url}/v1/products`, key, body)),
          ),
          PYTHON === undefined
            ? []
            : pythonUploads(`${server.url}/v1/products`, key, JSON_BYTES, UPLOADS / 2),
        ]);
        for (const [index, answer] of [...sockets, ...fetched].entries()) {
          assertProblem(answer, 413, 'payload_too_large', `busy ${index}`);
        }
        assertPythonAnswers(python, 'busy urllib');
      } finally {
        busy.stop();
      }
    });

    it('cuts off a client that sends past the drain’s 64 MiB, after its 413', async () => {
      const socket = await connect(server, { allowHalfOpen: true });
      const chunk = Buffer.alloc(MIB, 'a');
      let sent = 0;
      const answer = await new Promise<Answer | undefined>((resolve) => {
        const chunks: Buffer[] = [];
        socket.on('data', (data: Buffer) => chunks.push(data));
        socket.on('error', () => undefined);
        socket.once('close', () => resolve(parse(Buffer.concat(chunks))));
        socket.write(request('/v1/products', key, 'application/json', 1024 * MIB));
        // Sends on for as long as the connection is open: up to its declared 1 GiB.
        const pump = () => {
          while (!socket.destroyed && sent < 1024 * MIB) {
            sent += chunk.length;
            if (!socket.write(chunk)) {
              socket.once('drain', pump);
              return;
            }
          }
        };
        pump();
      });
      assertProblem(answer, 413, 'payload_too_large', 'past the drain');
      assert.ok(sent < 1024 * MIB, `cut off after ${sent / MIB} MiB`);
      assert.ok(sent >= 64 * MIB, `sent ${sent / MIB} MiB before the cut: the drain’s bound is 64 MiB`);
    });
  });
}

describe('the lingering close’s bounds', () => {
  let store: TestStore;

  before(async () => {
    store = await migratedStore('sqlite');
  });
  after(() => store.drop());

  it('cuts off a client sending a byte a second at the drain’s time bound, after its 413', async () => {
    // Only the drain's 1 s can end this connection: the request's own limit is 10 minutes.
    const server = await startServer(
      loadConfig({
        ...store.env,
        PORT: '0',
        TLS: 'off',
        LINGER_TIMEOUT_MS: '1000',
        REQUEST_TIMEOUT_MS: '600000',
      }),
    );
    try {
      const key = await tenantKey(server);
      const socket = await connect(server, { allowHalfOpen: true });
      let answeredAt = 0;
      const chunks: Buffer[] = [];
      let trickle: NodeJS.Timeout | undefined;
      const answer = await new Promise<Answer | undefined>((resolve) => {
        socket.on('data', (data: Buffer) => {
          chunks.push(data);
          answeredAt ||= Date.now();
        });
        socket.on('error', () => undefined);
        socket.once('close', () => resolve(parse(Buffer.concat(chunks))));
        socket.write(request('/v1/products', key, 'application/json', 2 * MIB));
        trickle = setInterval(() => socket.writable && socket.write('a'), 1_000);
      });
      clearInterval(trickle);
      const lingered = Date.now() - answeredAt;
      assertProblem(answer, 413, 'payload_too_large', 'slow sender');
      assert.ok(lingered < 60_000, `closed ${lingered} ms after the answer`);
    } finally {
      await server.shutdown();
    }
  });

  it('counts a draining connection against the connection cap', async () => {
    const server = await startServer(
      loadConfig({
        ...store.env,
        PORT: '0',
        TLS: 'off',
        MAX_CONNECTIONS: '1',
        LINGER_TIMEOUT_MS: '600000',
        REQUEST_TIMEOUT_MS: '600000',
      }),
    );
    try {
      const key = await tenantKey(server);
      const ask = async () => {
        const socket = await connect(server);
        return new Promise<Answer | undefined>((resolve) => {
          const chunks: Buffer[] = [];
          socket.on('data', (data: Buffer) => chunks.push(data));
          socket.on('error', () => undefined);
          socket.once('close', () => resolve(parse(Buffer.concat(chunks))));
          socket.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n');
        });
      };
      // A refused upload whose client goes on sending: its connection drains, and stays open.
      const draining = await connect(server, { allowHalfOpen: true });
      const chunks: Buffer[] = [];
      const answered = new Promise<void>((resolve) =>
        draining.on('data', (data: Buffer) => {
          chunks.push(data);
          resolve();
        }),
      );
      const closed = new Promise<void>((resolve) => draining.once('close', () => resolve()));
      draining.on('error', () => undefined);
      draining.write(request('/v1/products', key, 'application/json', 2 * MIB));
      draining.write(Buffer.alloc(64 * 1024, 'a'));
      await answered;
      const refused = await ask();
      assertProblem(refused, 503, 'service_unavailable', 'while another connection drains');
      // Once its client stops, the drain ends and the place is free again.
      draining.end();
      await closed;
      assertProblem(parse(Buffer.concat(chunks)), 413, 'payload_too_large', 'the draining upload');
      let served = await ask();
      // The server sees the connection close a moment after the client does.
      for (let i = 0; i < 100 && served?.status === 503; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        served = await ask();
      }
      assert.equal(served?.status, 200);
    } finally {
      await server.shutdown();
    }
  });
});
