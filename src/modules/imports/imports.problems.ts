import type { ProblemDeclarations } from '../../lib/errors.js';

/**
 * The problem code only imports answer (the manifest declares it): its status, its title and the
 * example the API reference shows.
 */
export const IMPORT_PROBLEMS = {
  invalid_import: {
    status: 422,
    title: 'Invalid import file',
    example: { detail: 'The body is not JSON Lines: its first line is not a JSON object.' },
  },
} satisfies ProblemDeclarations;
