import type { Static } from 'typebox';
import type { EnvelopeSchema } from '../../src/http/pagination.js';
import type { ProblemSchema } from '../../src/http/schemas.js';

/** Response bodies as tests read them, derived from the schemas the routes declare. */

/** An `application/problem+json` body. */
export type Problem = Static<typeof ProblemSchema>;

/** A list: the envelope `EnvelopeSchema` declares, around items of type `T`. */
export type Page<T> = Omit<Static<ReturnType<typeof EnvelopeSchema>>, 'data'> & { data: T[] };

/**
 * A body that is `T` on success and problem `P` otherwise, for a test that reads either after
 * checking the status (`T`'s members win where both name one, as `status` may).
 */
export type OrProblem<T, P = Problem> = T & Omit<P, keyof T>;
