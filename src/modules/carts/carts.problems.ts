import type { ProblemDeclarations } from '../../lib/errors.js';
import { CART_EXAMPLE } from './carts.examples.js';

/**
 * The problem codes only carts answer (the manifest declares them): each with its status, its
 * title and the example the API reference shows, with the members the server gives it.
 */
export const CART_PROBLEMS = {
  cart_not_open: {
    status: 409,
    title: 'Cart not open',
    example: {
      detail: 'The cart is completed: it takes no changes.',
      options: { extra: { cart_status: 'completed' } },
    },
  },
  cart_changed: {
    status: 409,
    title: 'Cart changed',
    example: {
      detail:
        'The cart now totals 9329 USD (minor units), not the 8829 expected; show the shopper the cart in `cart` and complete it with its total.',
      options: { extra: { cart: CART_EXAMPLE } },
    },
  },
  holds_disabled: {
    status: 409,
    title: 'Stock holds disabled',
    example: {
      detail:
        'This store does not hold stock for carts (its storefront.hold_minutes is not set); units are taken when the cart is completed.',
    },
  },
  too_many_holds: {
    status: 409,
    title: 'Too many holds',
    example: {
      detail:
        'This shopper already holds 3 carts at this store; complete one, change its lines or let its hold run out (2027-01-20T10:42:00.000Z) first.',
      options: { extra: { max_holds: 3, next_release_at: '2027-01-20T10:42:00.000Z' } },
    },
  },
  cart_not_ready: {
    status: 422,
    title: 'Cart not ready',
    example: {
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
  },
} satisfies ProblemDeclarations;
