import type { ProblemDeclarations } from '../../lib/errors.js';

/** The problem codes only fulfilments and returns answer. */
export const FULFILLMENT_PROBLEMS = {
  quantity_exceeds_unfulfilled: {
    status: 422,
    title: 'Quantity exceeds unfulfilled',
    example: {
      detail: '3 of var_2bQx7ZpW2bX9sT2uV7wY3cE5 (T-shirt) cannot be fulfilled: 1 left to fulfil.',
      options: { extra: { variant_id: 'var_2bQx7ZpW2bX9sT2uV7wY3cE5', unfulfilled: 1 } },
    },
  },
  quantity_exceeds_returnable: {
    status: 422,
    title: 'Quantity exceeds returnable',
    example: {
      detail:
        '2 of var_2bQx7ZpW2bX9sT2uV7wY3cE5 (T-shirt) cannot be returned: 1 shipped and not returned yet.',
      options: { extra: { variant_id: 'var_2bQx7ZpW2bX9sT2uV7wY3cE5', returnable: 1 } },
    },
  },
} satisfies ProblemDeclarations;
