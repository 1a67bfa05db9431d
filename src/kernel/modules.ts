import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { declareProblems } from '../lib/errors.js';
import { declareIdPrefixes } from '../lib/ids.js';
import type { ModuleManifest, ServiceName } from './module.js';
import { createVocabulary, type Vocabulary } from './vocabulary.js';

/**
 * Finds the modules: every folder of src/modules that holds `<folder>.module.ts` (its manifest,
 * the default export), so a new module is a new folder and nothing else. A folder without one is a
 * library the modules share (`limits`: the rate limiter the usage module builds). The manifests
 * come in their `position` order, then by name; `composeServices` builds them in the order their
 * needs allow.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each manifest has its own needs and services
export type AnyManifest = ModuleManifest<any, any>;

const MODULES_DIR = fileURLToPath(new URL('../modules/', import.meta.url));
/** `.ts` when run through tsx (tests, scripts), `.js` when built (`npm start`). */
const EXTENSION = path.extname(fileURLToPath(import.meta.url));

let loading: Promise<readonly AnyManifest[]> | undefined;

/** The manifests, found and imported once per process. */
export function loadModules(): Promise<readonly AnyManifest[]> {
  loading ??= findModules();
  return loading;
}

async function findModules(): Promise<readonly AnyManifest[]> {
  const folders = fs
    .readdirSync(MODULES_DIR, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  const modules: AnyManifest[] = [];
  for (const folder of folders) {
    const file = path.join(MODULES_DIR, folder, `${folder}.module${EXTENSION}`);
    if (!fs.existsSync(file)) continue;
    const manifest = ((await import(pathToFileURL(file).href)) as { default?: AnyManifest }).default;
    if (manifest?.name !== folder) {
      throw new Error(
        `${path.relative(process.cwd(), file)} must export default defineModule({ name: '${folder}' })`,
      );
    }
    modules.push(manifest);
  }
  declareModules(modules);
  return inOrder(modules);
}

/**
 * Hands each module's problem codes and id prefixes to the house (src/lib/errors.ts, ids.ts): the
 * manifests found, and the modules a process composes instead (a test's own). A code or a prefix
 * two modules declare fails, naming both.
 */
export function declareModules(modules: readonly AnyManifest[]): void {
  for (const module of modules) {
    declareProblems(module.name, module.problems ?? {});
    declareIdPrefixes(module.name, module.idPrefixes ?? []);
  }
}

/** Modules in their `position` order, then by name. */
export function inOrder(modules: readonly AnyManifest[]): readonly AnyManifest[] {
  return [...modules].sort((a, b) => a.position - b.position || a.name.localeCompare(b.name));
}

/**
 * Builds every module's services, each once the services it needs are built (in `position` order
 * where that leaves a choice), and returns them all by name. A need no module offers, two modules
 * offering one name, or modules needing each other fail at start, naming them.
 */
export function composeServices<Base extends object>(
  modules: readonly AnyManifest[],
  base: Base,
): Base & Record<string, unknown> {
  const built: Record<string, unknown> = { ...(base as Record<string, unknown>) };
  const waiting = [...modules];
  while (waiting.length > 0) {
    const index = waiting.findIndex((module) =>
      (module.needs ?? []).every((need: ServiceName) => need in built),
    );
    if (index === -1) {
      const missing = waiting.map(
        (module) =>
          `${module.name} needs ${(module.needs ?? []).filter((need: ServiceName) => !(need in built)).join(', ')}`,
      );
      throw new Error(`modules wait on services no module has built: ${missing.join('; ')}`);
    }
    const [module] = waiting.splice(index, 1) as [AnyManifest];
    const services = (module.services?.(built as never) ?? {}) as Record<string, unknown>;
    for (const [name, service] of Object.entries(services)) {
      if (name in built) throw new Error(`module ${module.name} offers ${name}, which is already built`);
      built[name] = service;
    }
  }
  return built as Base & Record<string, unknown>;
}

/** Every module's words (the CLI and tests read them without composing the house). */
export async function loadVocabulary(): Promise<Vocabulary> {
  return createVocabulary(await loadModules());
}
