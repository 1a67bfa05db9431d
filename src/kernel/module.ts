import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { Migration } from 'kysely';
import type { TSchema } from 'typebox';
import type { Config } from '../config.js';
import type { createGate } from '../http/auth.js';
import type { Store } from '../db/store.js';
import type { Clock } from '../lib/clock.js';
import type { ProblemDeclarations } from '../lib/errors.js';
import type { Logger } from '../lib/logger.js';
import type { EmitListener } from '../modules/events/index.js';
import type { VersionChange, VersionRegistry } from '../modules/versions/index.js';
import type { EventDeclaration, Vocabulary } from './vocabulary.js';

/**
 * A module's manifest (`src/modules/<m>/<m>.module.ts`, its default export): everything the house
 * needs to know of the module, so that adding one touches no central list. The composition root
 * (src/deps.ts, src/app.ts) finds the manifests (kernel/modules.ts) and loops over them: it builds
 * each module's services once what they need is built, registers its routes, its event effects and
 * its background jobs; the OpenAPI document takes its tags, operation ids and components from
 * them, the version registry its version changes, the vocabulary its permissions and events, the
 * problem codes its codes, the ids its prefixes and the migrator its migrations. Its tables'
 * types it adds to the `Database` interface (src/db/schema.ts) by declaration merging.
 */

/**
 * The services modules offer each other, by name: each manifest adds its own by declaration
 * merging (`declare module '../../kernel/module.js' { interface Services { products: ... } }`).
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by the modules' manifests
export interface Services {}

/**
 * What the process that composes the house may change (tests, benchmarks, the CLI); each module
 * adds its own options by declaration merging, as `Services`.
 */
export interface Overrides {
  clock?: Clock;
  logger?: Logger;
  poolSize?: number;
  /** false: no rate limits, quota or usage metering on requests (benchmarks measure their cost). */
  limitsAndMetering?: boolean;
}

/** What every module may use: the shared infrastructure, built before any module. */
export interface Platform {
  config: Config;
  clock: Clock;
  logger: Logger;
  store: Store;
  vocabulary: Vocabulary;
  /** The dated versions: the `changes/` of the versions module and the modules' own changes. */
  versions: VersionRegistry;
  overrides: Overrides;
}

export type ServiceName = keyof Services;

/**
 * Runs `job` every `ms` (and once at once with `atStart`), logging `failure` with the error when a
 * run fails; the timers never hold the process open and stop when the house closes.
 */
export type Every = (
  ms: number,
  job: () => Promise<unknown>,
  failure: string,
  options?: { atStart?: boolean },
) => void;

/** What a module's parts receive: the platform and the services it declared it needs. */
export type ModuleDeps<N extends ServiceName> = Platform & Pick<Services, N>;

/** What the HTTP app lends a module's routes: the gate a route outside `/v1` puts before itself. */
export interface HttpParts {
  gateFor: ReturnType<typeof createGate>;
}

/** Routes a module registers, under a prefix (`/v1` unless said). */
export interface RouteSet<D> {
  prefix?: '/v1' | '' | '/console/api';
  plugin: (deps: D, http: HttpParts) => FastifyPluginAsyncTypebox | FastifyPluginAsync;
}

/** An OpenAPI tag: the reference's group of the module's operations. */
export interface Tag {
  name: string;
  description: string;
}

export interface ModuleManifest<N extends ServiceName = ServiceName, P extends Partial<Services> = object> {
  /** The folder's name. */
  name: string;
  /**
   * Where the module stands among the others when nothing it needs decides: its tag's place in the
   * API reference, its permissions' and events' place in lists, its routes' in the document.
   */
  position: number;
  /** The OpenAPI tags the module introduces (another module's operations may use them too). */
  tags?: readonly Tag[];
  permissions?: readonly string[];
  events?: readonly EventDeclaration[];
  /** `operationId` of each of its operations, by `METHOD /path` (published names: never changed). */
  operationIds?: Readonly<Record<string, string>>;
  /** Schemas declared once under `components/schemas` and referenced wherever they appear. */
  components?: (vocabulary: Vocabulary) => Readonly<Record<string, TSchema>>;
  /** Changes of dated versions to the module's resources, by version (`2026-12-15`). */
  versionChanges?: Readonly<Record<string, readonly VersionChange[]>>;
  /**
   * The problem codes only this module answers, with their status, title and example (named in
   * `ProblemCodeNames` too, so `AppError` takes them); the codes the house shares are in
   * src/lib/errors.ts.
   */
  problems?: ProblemDeclarations;
  /** The prefixes of the ids it makes (named in `IdPrefixNames` too, so `newId` takes them). */
  idPrefixes?: readonly string[];
  /**
   * Its migrations, by name: the number of the one list every migration shares, then what it
   * does (`0039_carts`). The migrator runs them with src/db/migrations/ in name order; a number
   * taken twice fails the start. A migration is frozen: plain SQL, no module code.
   */
  migrations?: Readonly<Record<string, Migration>>;
  /** The services of other modules it uses. */
  needs?: readonly N[];
  /** Builds its services, once every service it needs is built. */
  services?: (deps: ModuleDeps<N>) => P;
  /**
   * What every event also writes, inside the transaction of the change that emits it (the events
   * module's `onEmit`), so the change, its events and these rows commit together or not at all.
   */
  effects?: (deps: ModuleDeps<N> & P) => readonly EmitListener[];
  /**
   * App-wide request hooks (`app.addHook`), installed before any route is registered so every
   * route gets them: what must see every request (the audit context, the request log).
   */
  hooks?: (deps: ModuleDeps<N> & P, app: FastifyInstance) => void;
  routes?: readonly RouteSet<ModuleDeps<N> & P>[];
  /** Once the HTTP app is built and ready (the first-party apps call the API through it). */
  ready?: (deps: ModuleDeps<N> & P, app: FastifyInstance) => void;
  /**
   * Starts its background work in a serving process (`deps.start()`): jobs on a timer through
   * `every`, which the house stops on close, and what its services start themselves.
   */
  start?: (deps: ModuleDeps<N> & P, every: Every) => void;
  /** Stops what it started and releases what it holds, before the store closes. */
  stop?: (deps: ModuleDeps<N> & P) => Promise<void> | void;
}

/**
 * A manifest, with its services' and routes' dependencies checked: `needs` names services other
 * modules offer, and `services`, `routes`, `effects`, `start` and `stop` see exactly those and its own.
 */
export function defineModule<const N extends ServiceName = never, P extends Partial<Services> = object>(
  manifest: ModuleManifest<N, P>,
): ModuleManifest<N, P> {
  return manifest;
}
