// Receives and verifies webhook deliveries: npx tsx examples/receive-webhooks.ts [--once]
//
// Starts an HTTP receiver on 127.0.0.1 (WEBHOOK_PORT, default any free port), registers it as an
// endpoint for every event, asks the API for a test delivery and verifies each delivery's
// signature with the endpoint's secret. A development server must allow a local http:// endpoint
// (WEBHOOK_ALLOW_INSECURE=true). Ctrl-C (or --once, after the first delivery) removes the endpoint.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebhookVerificationError } from '@commerce-platform/client';
import { connect, run } from './connect.js';

run(async () => {
  const once = process.argv.includes('--once');
  const commerce = connect();
  let secret = '';
  let finish: () => void = () => undefined;
  const finished = new Promise<void>((resolve) => (finish = resolve));

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      try {
        // The raw body as received: a re-serialized JSON body would not verify.
        const event = commerce.webhooks.verify(Buffer.concat(chunks), req.headers, secret);
        console.log(`verified ${event.type} ${event.id} (API version ${event.api_version})`);
        res.writeHead(204).end();
        if (once) finish();
      } catch (error) {
        if (!(error instanceof WebhookVerificationError)) throw error;
        console.log(`refused a delivery: ${error.message}`);
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) =>
    server.listen(Number(process.env.WEBHOOK_PORT ?? 0), '127.0.0.1', resolve),
  );
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;

  const endpoint = await commerce.webhooks.create({
    url,
    events: ['*'],
    description: 'examples/receive-webhooks.ts',
  });
  secret = endpoint.secret ?? '';
  console.log(`listening on ${url} as endpoint ${endpoint.id}`);
  await commerce.webhooks.test(endpoint.id);
  process.once('SIGINT', finish);
  await finished;

  await commerce.webhooks.delete(endpoint.id);
  server.close();
  await commerce.close();
});
