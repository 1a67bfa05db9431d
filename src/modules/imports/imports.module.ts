import { defineModule } from '../../kernel/module.js';
import type { Names } from '../../kernel/vocabulary.js';
import type { CodesOf } from '../../lib/errors.js';
import { IMPORT_PROBLEMS } from './imports.problems.js';
import { importRoutes } from './imports.routes.js';
import { createImportRunner, type ImportRunner, type ImportRunnerOptions } from './imports.runner.js';
import {
  ImportErrorListSchema,
  ImportErrorSchema,
  ImportListSchema,
  ImportSchema,
} from './imports.schemas.js';
import { createImportService, type ImportService } from './imports.service.js';

/**
 * Bulk imports of products and customers (CSV, JSON Lines, a Shopify or WooCommerce export), run in
 * the background.
 */

/** An import as versions before 2027-01-20 show it: no `ignored_columns`, no `woocommerce` format. */
function importBefore(object: Record<string, unknown>): Record<string, unknown> {
  const { ignored_columns: _ignored, ...before } = object;
  return before.format === 'woocommerce' ? { ...before, format: 'csv' } : before;
}

/** An import as versions before 2027-01-20 show it: no `filename`. */
function importWithoutFilename(object: Record<string, unknown>): Record<string, unknown> {
  const { filename: _filename, ...before } = object;
  return before;
}

const PERMISSIONS = ['read:imports', 'write:imports'] as const;
const EVENTS = ['import.completed'] as const;

declare module '../../kernel/vocabulary.js' {
  interface PermissionNames extends Names<typeof PERMISSIONS> {}
  interface EventTypeNames extends Names<typeof EVENTS> {}
}
declare module '../../lib/errors.js' {
  interface ProblemCodeNames extends CodesOf<typeof IMPORT_PROBLEMS> {}
}
declare module '../../kernel/module.js' {
  interface Services {
    imports: ImportService;
    /** Runs imports; started by the server (WEBHOOK_WORKER_IN_PROCESS) or src/worker.ts. */
    importRunner: ImportRunner;
  }
  interface Overrides {
    /** Bulk imports: batch size, lease and polling of the runner. */
    imports?: ImportRunnerOptions;
  }
}

export default defineModule({
  name: 'imports',
  position: 150,
  // The exports module's operations share this tag.
  tags: [
    {
      name: 'Imports and exports',
      description:
        'Products and customers from CSV, JSON Lines or a Shopify or WooCommerce export; every row out as a file',
    },
  ],
  permissions: PERMISSIONS,
  events: [{ types: EVENTS, object: ImportSchema }],
  operationIds: {
    'GET /v1/imports': 'listImports',
    'POST /v1/imports': 'createImport',
    'GET /v1/imports/:id': 'getImport',
    'GET /v1/imports/:id/errors': 'listImportErrors',
  },
  components: () => ({
    Import: ImportSchema,
    ImportList: ImportListSchema,
    ImportError: ImportErrorSchema,
    ImportErrorList: ImportErrorListSchema,
  }),
  versionChanges: {
    '2027-01-20': [
      {
        description:
          'Imports read every Shopify product layout (classic, 2024 and the current one with `URL handle`) and WooCommerce’s product export (`format: "woocommerce"`), keep images, handles, costs and SEO fields, refuse numbers mangled into scientific notation and barcodes whose check digit fails, and list the columns they did not use in `ignored_columns`.',
        toPrevious: { import: importBefore },
      },
      {
        description:
          'Imports carry `filename`: the name of the file sent, from the upload’s `Content-Disposition` header (`filename` or `filename*`), or null.',
        toPrevious: { import: importWithoutFilename },
      },
    ],
  },
  needs: ['events'],
  services: (deps) => {
    const importRunner = createImportRunner(deps, deps.overrides.imports);
    // A new import wakes this process's runner at once; other processes' runners poll.
    return { importRunner, imports: createImportService({ ...deps, wake: importRunner.wake }) };
  },
  problems: IMPORT_PROBLEMS,
  routes: [{ plugin: importRoutes }],
  stop: async ({ importRunner }) => {
    await importRunner.stop();
  },
});
