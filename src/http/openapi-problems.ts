import {
  AppError,
  type ErrorCode,
  notFound,
  problemCodes,
  type ProblemExample,
  problemExampleOf,
  problemStatus,
  type SharedErrorCode,
  validationFailed,
} from '../lib/errors.js';
import { type Problem, problemFor } from './problem.js';

/**
 * The OpenAPI document's problem codes and example problems. Every problem response lists the
 * codes its status answers, the `Problem` schema every code (`withProblemCodes`: the modules'
 * codes are known once they are loaded). Each code has one example (`problem-<code>` under
 * `components/examples`), built by `problemFor` as the server renders it, with a detail and
 * members the server gives that code; every problem response of an operation shows the examples of
 * its status's codes (`withProblemExamples`), so a `404` shows a `not_found`, not a validation failure.
 */

type Sample = AppError | ProblemExample;

const REQUEST_ID = 'req_e5271c6676bad1dce738723622f39149';

/**
 * What each shared code's example says: a detail and the members the server adds to that code (a
 * module declares its own codes' examples with them, in its manifest).
 */
const SAMPLES: Record<SharedErrorCode, Sample> = {
  invalid_json: { detail: 'The request body is not valid JSON.' },
  validation_failed: validationFailed([
    { field: 'items[0].quantity', message: 'must be >= 1' },
    { field: 'shipping_address.country', message: 'must match pattern "^[A-Z]{2}$"' },
  ]),
  invalid_version: {
    detail: '"2026-13-01" is not a date of the form YYYY-MM-DD.',
    options: { extra: { supported_versions: ['2026-11-21', '2026-12-15', '2027-01-20'] } },
  },
  invalid_idempotency_key: { detail: 'Idempotency-Key must be 1 to 255 printable ASCII characters.' },
  authentication_required: { detail: 'Send an API key as "Authorization: Bearer sk_live_...".' },
  invalid_api_key: { detail: 'The API key is not valid.' },
  api_key_expired: { detail: 'The API key has expired.' },
  insufficient_permissions: {
    detail: 'This API key lacks the write:orders permission.',
    options: { extra: { required_permission: 'write:orders' } },
  },
  publishable_key_not_allowed: {
    detail:
      'A publishable key (pk_live_...) may call only the storefront routes (/v1/store/*); use a secret key here.',
  },
  origin_not_allowed: {
    detail: 'The origin https://evil.example is not among the allowed_origins of this publishable key.',
  },
  not_found: notFound('product'),
  method_not_allowed: { detail: 'PUT is not allowed on /v1/users/me; use GET, HEAD.' },
  request_timeout: {
    detail:
      'The request did not arrive in time: its headers must arrive within 10 s and all of it within 30 s.',
  },
  idempotency_key_in_use: {
    detail: 'A request with this Idempotency-Key is still being processed; retry after it completes.',
  },
  invalid_state_transition: {
    detail: 'Cannot ship an order that is pending.',
    options: { extra: { order_status: 'pending' } },
  },
  duplicate_sku: {
    detail: 'Another variant already has the SKU "TEE-BLK-M" (SKUs compare case-insensitively).',
  },
  handle_taken: {
    detail: 'Another product already has the handle "classic-tee".',
    options: {
      errors: [{ field: 'handle', message: 'is the handle of another product: "classic-tee"' }],
      extra: { handle: 'classic-tee' },
    },
  },
  duplicate_email: {
    detail: 'Another customer already has the email ada@example.com (compared case-insensitively).',
  },
  customer_has_orders: {
    detail:
      'This customer has orders, which keep their customer; redact the customer to erase their personal data.',
  },
  duplicate_code: {
    detail: 'Another discount already has the code SUMMER10 (codes are compared case-insensitively).',
  },
  duplicate_tax_rate: {
    detail: 'There is already a tax rate for DE (txr_4kQz8mN2pLx7Vb3Rt9Wc1Hd6); change that one instead.',
    options: { extra: { conflicting_rate_id: 'txr_4kQz8mN2pLx7Vb3Rt9Wc1Hd6' } },
  },
  shipping_rate_overlap: {
    detail:
      'The shipping rate shr_9Tf2Lq5Zx8Nc3Vb6Mk1Pw4Rs ("Standard", 0-2000 g) already prices parcels of these weights in EUR to DE; give the rates of one name weight bands that do not overlap (bounds are inclusive), different countries, or another name.',
    options: { extra: { conflicting_rate_id: 'shr_9Tf2Lq5Zx8Nc3Vb6Mk1Pw4Rs' } },
  },
  payload_too_large: { detail: 'The request body is over the 1 MiB limit.' },
  unsupported_media_type: { detail: 'Send request bodies as JSON with "Content-Type: application/json".' },
  idempotency_key_reused: {
    detail: 'This Idempotency-Key was used with a different request; use a new key for a new request.',
  },
  insufficient_stock: {
    detail: 'Not enough stock for var_2Jd7Hk4Qs9Xv1Bn6Lm3Tc8Wf (Linen shirt / M): 3 requested.',
    options: {
      extra: { product_id: 'prod_NUM03sM4JHrY5j5OPiOa7rZU', variant_id: 'var_2Jd7Hk4Qs9Xv1Bn6Lm3Tc8Wf' },
    },
  },
  insufficient_funds: {
    detail: 'The wallet wal_6Yp3Rc8Kv1Ms5Tq9Lx2Bh7Nd does not have 5000 EUR available.',
    options: { extra: { wallet_id: 'wal_6Yp3Rc8Kv1Ms5Tq9Lx2Bh7Nd' } },
  },
  currency_mismatch: {
    detail:
      'All items must share one currency: prod_NUM03sM4JHrY5j5OPiOa7rZU is priced in USD, an earlier item in EUR.',
  },
  invalid_destination: { detail: 'A wallet cannot transfer to itself.' },
  payment_failed: {
    detail: 'The payment failed: The card was declined.',
    options: { extra: { payment_id: 'pay_8Gw1Zr6Ne3Xt9Ck4Vj7Qm2Ls', failure_code: 'card_declined' } },
  },
  invalid_webhook_url: { detail: 'url must use https.' },
  limit_exceeded: { detail: 'A tenant can have at most 20 webhook endpoints; delete one first.' },
  amount_exceeds_refundable: {
    detail: 'A refund of 5000 exceeds the 3200 EUR left to refund on this order.',
    options: { extra: { refundable_amount: 3200 } },
  },
  discount_invalid: {
    detail: 'No discount has the code SUMMER1O.',
    options: {
      errors: [{ field: 'discount_codes[0]', message: 'No discount has the code SUMMER1O.' }],
      extra: { reason: 'unknown', discount_code: 'SUMMER1O' },
    },
  },
  shipping_unavailable: {
    detail: 'The shipping rate shr_9Tf2Lq5Zx8Nc3Vb6Mk1Pw4Rs does not ship to US.',
    options: {
      errors: [
        {
          field: 'shipping_rate_id',
          message: 'The shipping rate shr_9Tf2Lq5Zx8Nc3Vb6Mk1Pw4Rs does not ship to US.',
        },
      ],
    },
  },
  rate_limited: { detail: 'Over the hourly limit of 1000 requests; retry in 1742 s.' },
  quota_exceeded: {
    detail: 'The monthly quota of 10000 calls is used up; it resets at 2026-12-01T00:00:00.000Z.',
  },
  request_header_fields_too_large: { detail: 'The request line and headers are over 16 KiB.' },
  internal_error: {
    detail: 'Something went wrong on our side. Retry later; quote the request_id if it persists.',
  },
  ai_provider_error: { detail: 'The AI provider answered without a completion.' },
  service_unavailable: {
    detail:
      'A record this request needs is locked by another operation, and the wait timed out; retry the request shortly.',
  },
  ai_provider_timeout: { detail: 'The AI provider did not answer within 30000 ms.' },
};

function exampleName(code: ErrorCode): string {
  return `problem-${code}`;
}

/** The example problem of `code`, as the server renders that code. */
export function problemExample(code: ErrorCode): Problem {
  const sample = problemExampleOf(code) ?? SAMPLES[code as SharedErrorCode];
  const error = sample instanceof AppError ? sample : new AppError(code, sample.detail, sample.options);
  if (error.code !== code) throw new Error(`The example of ${code} is a ${error.code}`);
  return problemFor(error, REQUEST_ID);
}

type Schema = Record<string, unknown>;

function isObject(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Every code, by its status. */
function codesByStatus(): Map<number, ErrorCode[]> {
  const codesOf = new Map<number, ErrorCode[]>();
  for (const code of problemCodes()) {
    const status = problemStatus(code);
    codesOf.set(status, [...(codesOf.get(status) ?? []), code]);
  }
  return codesOf;
}

/** Each problem response (`application/problem+json`) of the document's operations, with its status. */
function* problemResponses(document: Schema): Generator<[number, Schema, Schema]> {
  const paths = isObject(document.paths) ? document.paths : {};
  for (const item of Object.values(paths)) {
    if (!isObject(item)) continue;
    for (const operation of Object.values(item)) {
      if (!isObject(operation) || !isObject(operation.responses)) continue;
      for (const [status, response] of Object.entries(operation.responses)) {
        const media =
          isObject(response) && isObject(response.content)
            ? response.content['application/problem+json']
            : undefined;
        if (isObject(response) && isObject(media)) yield [Number(status), response, media];
      }
    }
  }
}

/**
 * The document with every code listed: each problem response's description names the codes its
 * status answers (after what the status means), and the `Problem` schema's `code` lists them all.
 */
export function withProblemCodes<T extends Schema>(document: T): T {
  const codesOf = codesByStatus();
  // A response object two operations share is named once.
  const named = new WeakSet<Schema>();
  for (const [status, response] of problemResponses(document)) {
    if (named.has(response)) continue;
    named.add(response);
    const codes = (codesOf.get(status) ?? []).map((code) => `\`${code}\``);
    response.description = `${String(response.description)}: ${codes.join(', ')}`;
  }
  const components = isObject(document.components) ? document.components : {};
  const schemas = isObject(components.schemas) ? components.schemas : {};
  const problem = isObject(schemas.Problem) ? schemas.Problem : undefined;
  const properties = problem && isObject(problem.properties) ? problem.properties : undefined;
  if (!problem || !properties || !isObject(properties.code)) {
    throw new Error('the document has no Problem schema with a code');
  }
  const code = { ...properties.code, enum: problemCodes() };
  schemas.Problem = { ...problem, properties: { ...properties, code } };
  return document;
}

/**
 * The document with every operation's problem responses (`application/problem+json`) showing the
 * examples of the codes their status answers, each referenced from `components/examples`, which
 * holds the example of every code some response shows.
 */
export function withProblemExamples<T extends Schema>(document: T): T {
  const codesOf = codesByStatus();
  const shown = new Set<ErrorCode>();
  for (const [status, , media] of problemResponses(document)) {
    const codes = codesOf.get(status);
    if (codes === undefined || media.example !== undefined || media.examples !== undefined) continue;
    for (const code of codes) shown.add(code);
    media.examples = Object.fromEntries(
      codes.map((code) => [code, { $ref: `#/components/examples/${exampleName(code)}` }]),
    );
  }
  const components = isObject(document.components) ? document.components : {};
  const examples: Schema = isObject(components.examples) ? components.examples : {};
  for (const code of problemCodes()) {
    if (!shown.has(code)) continue;
    const value = problemExample(code);
    examples[exampleName(code)] = { summary: `${value.status} ${code}: ${value.title}`, value };
  }
  return { ...document, components: { ...components, examples } };
}
