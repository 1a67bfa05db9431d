import type { ProblemDeclarations } from '../../lib/errors.js';

/** The problem codes only the inventory module answers. */
export const INVENTORY_PROBLEMS = {
  location_has_stock: {
    status: 409,
    title: 'Location has stock',
    example: {
      detail:
        'Location loc_7Hq2Lx9Vb4Nc8Zt1Mk6Pw3Rs still holds stock (units on hand or committed to orders): move or adjust them to 0 first.',
    },
  },
} satisfies ProblemDeclarations;
