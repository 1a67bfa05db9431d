import type { ProblemDeclarations } from '../../lib/errors.js';

/** The problem codes only test mode answers (the manifest declares them). */
export const TEST_MODE_PROBLEMS = {
  wrong_mode: {
    status: 403,
    title: 'Wrong mode',
    example: {
      detail: 'POST /v1/test-mode/reset works in test mode only: call it with a test key (sk_test_...).',
      options: { extra: { required_mode: 'test' } },
    },
  },
} as const satisfies ProblemDeclarations;
