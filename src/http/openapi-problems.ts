import {
  AppError,
  type AppErrorOptions,
  ERROR_STATUS,
  type ErrorCode,
  notFound,
  validationFailed,
} from '../lib/errors.js';
import { CART_EXAMPLE } from '../modules/carts/index.js';
import { type Problem, problemFor } from './problem.js';

/**
 * The OpenAPI document's example problems: one per error code (`problem-<code>` under
 * `components/examples`), each built by `problemFor` as the server renders it, with a detail and
 * members the server gives that code. Every problem response of an operation shows the examples of
 * its status's codes (`withProblemExamples`), so a `404` shows a `not_found`, not a validation failure.
 */

type Sample = AppError | { detail: string; options?: AppErrorOptions };

const REQUEST_ID = 'req_e5271c6676bad1dce738723622f39149';

/** What each code's example says: a detail and the members the server adds to that code. */
const SAMPLES: Record<ErrorCode, Sample> = {
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
  invalid_credentials: { detail: 'The email or password is incorrect.' },
  invalid_customer_token: {
    detail: 'The X-Customer-Token is unknown, ended or expired; sign in again (POST /v1/store/sessions).',
  },
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
  cart_not_open: {
    detail: 'The cart is completed: it takes no changes.',
    options: { extra: { cart_status: 'completed' } },
  },
  cart_changed: {
    detail:
      'The cart now totals 9329 USD (minor units), not the 8829 expected; show the shopper the cart in `cart` and complete it with its total.',
    options: { extra: { cart: CART_EXAMPLE } },
  },
  holds_disabled: {
    detail:
      'This store does not hold stock for carts (its storefront.hold_minutes is not set); units are taken when the cart is completed.',
  },
  too_many_holds: {
    detail:
      'This shopper already holds 3 carts at this store; complete one, change its lines or let its hold run out (2027-01-20T10:42:00.000Z) first.',
    options: { extra: { max_holds: 3, next_release_at: '2027-01-20T10:42:00.000Z' } },
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
  cart_not_ready: {
    detail:
      'The cart cannot be completed: Linen shirt / M / Sand: not enough in stock for 2 units. (and 1 more: see problems)',
    options: {
      extra: {
        problems: [
          {
            code: 'insufficient_stock',
            line_id: 'cli_4mRt8YpW2bX9sT2uV7wY3cE5',
            message: 'Linen shirt / M / Sand: not enough in stock for 2 units.',
          },
          {
            code: 'email_required',
            message: 'Give the shopper’s email (PATCH the cart’s email) before completing it.',
          },
        ],
      },
    },
  },
  invalid_import: { detail: 'The body is not JSON Lines: its first line is not a JSON object.' },
  invalid_reset_token: {
    detail:
      'This reset token is unknown, used or expired; ask for a new one (POST /v1/store/customers/password-reset).',
    options: { errors: [{ field: 'reset_token', message: 'is unknown, used or expired' }] },
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
  const sample = SAMPLES[code];
  const error = sample instanceof AppError ? sample : new AppError(code, sample.detail, sample.options);
  if (error.code !== code) throw new Error(`The example of ${code} is a ${error.code}`);
  return problemFor(error, REQUEST_ID);
}

type Schema = Record<string, unknown>;

function isObject(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The document with every operation's problem responses (`application/problem+json`) showing the
 * examples of the codes their status answers, each referenced from `components/examples`, which
 * holds the example of every code some response shows.
 */
export function withProblemExamples<T extends Schema>(document: T): T {
  const codesOf = new Map<number, ErrorCode[]>();
  for (const [code, status] of Object.entries(ERROR_STATUS) as [ErrorCode, number][]) {
    codesOf.set(status, [...(codesOf.get(status) ?? []), code]);
  }
  const shown = new Set<ErrorCode>();
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
        const codes = codesOf.get(Number(status));
        if (
          !isObject(media) ||
          codes === undefined ||
          media.example !== undefined ||
          media.examples !== undefined
        )
          continue;
        for (const code of codes) shown.add(code);
        media.examples = Object.fromEntries(
          codes.map((code) => [code, { $ref: `#/components/examples/${exampleName(code)}` }]),
        );
      }
    }
  }
  const components = isObject(document.components) ? document.components : {};
  const examples: Schema = isObject(components.examples) ? components.examples : {};
  for (const code of Object.keys(ERROR_STATUS) as ErrorCode[]) {
    if (!shown.has(code)) continue;
    const value = problemExample(code);
    examples[exampleName(code)] = { summary: `${value.status} ${code}: ${value.title}`, value };
  }
  return { ...document, components: { ...components, examples } };
}
