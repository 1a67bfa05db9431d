import type { ProblemDeclarations } from '../../lib/errors.js';

/**
 * The problem codes only the shoppers' accounts answer (the manifest declares them): each with
 * its status, its title and the example the API reference shows.
 */
export const SHOPPER_PROBLEMS = {
  invalid_credentials: {
    status: 401,
    title: 'Invalid credentials',
    example: { detail: 'The email or password is incorrect.' },
  },
  invalid_customer_token: {
    status: 401,
    title: 'Invalid customer token',
    example: {
      detail: 'The X-Customer-Token is unknown, ended or expired; sign in again (POST /v1/store/sessions).',
    },
  },
  invalid_reset_token: {
    status: 422,
    title: 'Invalid reset token',
    example: {
      detail:
        'This reset token is unknown, used or expired; ask for a new one (POST /v1/store/customers/password-reset).',
      options: { errors: [{ field: 'reset_token', message: 'is unknown, used or expired' }] },
    },
  },
} satisfies ProblemDeclarations;
