import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../../kernel/module.js';
import { principalOf } from '../../http/auth.js';
import { idempotentWrite } from '../../lib/idempotent-write.js';
import { BODY_ERRORS, errorResponses } from '../../http/schemas.js';
import { GenerateDescriptionBody, GenerationSchema } from './ai.schemas.js';

const DESCRIPTION = `
Writes a product description from a stored product (\`product_id\`) or an inline \`product\`, in a
tone and a length, with the given keywords, and records the generation (\`gen_\` id). The text says
nothing the product's name, category, attributes, features, options and the keywords do not. A stored
product's options are named with the values some variant in stock has (a size sold out in every colour is
left out; when nothing is in stock, every variant's values); an inline product's as given. With
\`save: true\` the text becomes the product's \`description\` and \`product.updated\` is emitted; that
needs the \`write:products\` permission as well (403 \`insufficient_permissions\` otherwise).
The server's provider (\`AI_PROVIDER\`) writes it: \`builtin\` (no network, deterministic, English; the
same input and \`variant\` give the same text) or \`openai\` (an OpenAI-compatible chat-completions
server; 502 \`ai_provider_error\` when it fails, 504 \`ai_provider_timeout\` when it is too slow).
AI routes also count against a per-minute AI rate limit.
`.trim();

/** The same operation at both of its names; usage reports the path called. */
const PATHS = [
  ['/ai/generate-description', 'Generate a product description'],
  ['/ai/describe', 'Generate a product description (same as /ai/generate-description)'],
] as const;

export function aiRoutes(deps: Pick<Services, 'ai'>): FastifyPluginAsyncTypebox {
  const { ai } = deps;
  return async (app) => {
    for (const [path, summary] of PATHS) {
      app.post(
        path,
        {
          config: { auth: 'write:ai', rateLimit: 'ai' },
          schema: {
            tags: ['AI'],
            summary,
            description: DESCRIPTION,
            body: GenerateDescriptionBody,
            response: { 201: GenerationSchema, ...errorResponses(...BODY_ERRORS, 404, 502, 504) },
          },
        },
        async (request, reply) => {
          reply.code(201);
          return ai.generate(principalOf(request), request.body, idempotentWrite(request.idempotency));
        },
      );
    }
  };
}
