import { defineModule } from '../../kernel/module.js';
import type { Names } from '../../kernel/vocabulary.js';
import { createBuiltinProvider } from './ai.builtin.js';
import { createOpenAiProvider } from './ai.openai.js';
import { aiRoutes } from './ai.routes.js';
import { GenerationSchema } from './ai.schemas.js';
import { type AiService, createAiService } from './ai.service.js';

/** Product descriptions, written by the built-in writer or an OpenAI-compatible model (`AI_PROVIDER`). */

const PERMISSIONS = ['write:ai'] as const;

declare module '../../kernel/vocabulary.js' {
  interface PermissionNames extends Names<typeof PERMISSIONS> {}
}
declare module '../../kernel/module.js' {
  interface Services {
    ai: AiService;
  }
}

export default defineModule({
  name: 'ai',
  position: 120,
  tags: [{ name: 'AI', description: 'Product descriptions from the built-in writer or an AI model' }],
  permissions: PERMISSIONS,
  operationIds: {
    'POST /v1/ai/describe': 'describeProduct',
    'POST /v1/ai/generate-description': 'generateProductDescription',
  },
  components: () => ({ Generation: GenerationSchema }),
  needs: ['products', 'variants'],
  services: (deps) => {
    const { config, logger } = deps;
    const provider =
      config.ai.provider === 'openai' ? createOpenAiProvider(config.ai, logger) : createBuiltinProvider();
    return { ai: createAiService({ ...deps, provider }) };
  },
  routes: [{ plugin: aiRoutes }],
});
