/**
 * The TypeScript client's name for each operation (clients/typescript): a namespace per resource
 * and a method in it, both derived from the operation's path and `operationId`, so the client,
 * its generator (scripts/generate-client.ts) and the reference's code samples
 * (openapi-samples.ts) agree without a table of their own.
 *
 * The namespace is the first path segment after `/v1`, in camelCase (`/v1/shipping-rates` is
 * `shippingRates`); a path outside `/v1` takes its tag's name (`/healthz` is `health`). The method
 * is the `operationId` with the namespace's noun taken out (`listProducts` is `products.list`,
 * `listOrderRefunds` is `orders.listRefunds`), or, where the verb is the namespace itself, what
 * follows it (`exportProducts` is `exports.products`); an id without the noun stays whole
 * (`orders.createRefund`).
 */

export interface ClientName {
  namespace: string;
  method: string;
}

/** Nouns a namespace also goes by in operationIds, beyond its own plural and singular. */
const ALIASES: Readonly<Record<string, readonly string[]>> = {
  webhooks: ['WebhookEndpoint', 'WebhookEndpoints'],
};

/** Namespaces the client keeps for itself. */
export const RESERVED_NAMESPACES: readonly string[] = ['api', 'close'];

function camelCase(text: string): string {
  const words = text.split(/[^A-Za-z0-9]+/).filter((word) => word !== '');
  return words
    .map((word, index) =>
      index === 0 ? word.toLowerCase() : word.charAt(0).toUpperCase() + word.slice(1).toLowerCase(),
    )
    .join('');
}

function upperFirst(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}

/** `products` -> `product`; a name that is not a plain plural stays as it is (`usage`, `wallet`). */
export function singular(name: string): string {
  return name.endsWith('s') ? name.slice(0, -1) : name;
}

/** The namespace of an operation at `path` (OpenAPI `{id}` or Fastify `:id` form) under `tag`. */
export function namespaceOf(path: string, tag: string): string {
  const segments = path.split('/').filter((segment) => segment !== '');
  const resource = segments[0] === 'v1' ? segments[1] : undefined;
  return camelCase(resource ?? tag);
}

/** The client's namespace and method for an operation. */
export function clientName(path: string, operationId: string, tag: string): ClientName {
  const namespace = namespaceOf(path, tag);
  const words = operationId.match(/^[a-z]+|[A-Z][a-z0-9]*/g) ?? [operationId];
  const [verb = operationId, ...rest] = words;
  if (verb === singular(namespace) && rest.length > 0) {
    return { namespace, method: lowerFirst(rest.join('')) };
  }
  const nouns = [upperFirst(namespace), upperFirst(singular(namespace)), ...(ALIASES[namespace] ?? [])].sort(
    (a, b) => b.length - a.length,
  );
  for (const noun of nouns) {
    for (let start = 0; start < rest.length; start += 1) {
      let joined = '';
      for (let end = start; end < rest.length && joined.length < noun.length; end += 1) {
        joined += rest[end];
        if (joined === noun) {
          const left = [...rest.slice(0, start), ...rest.slice(end + 1)];
          return { namespace, method: verb + left.join('') };
        }
      }
    }
  }
  return { namespace, method: operationId };
}
