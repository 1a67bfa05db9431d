import { AppError } from '../../lib/errors.js';
import { EVERY_TYPE, type ObjectTransform, type TransformsByType, walk } from './versions.walker.js';
import { reachableTypes } from './versions.types.js';

/**
 * Dated API versions (docs/api-conventions.md). Handlers always produce the latest shape; each
 * dated version's changes (one file per version in `changes/`) say how to turn an object of each
 * resource type they touch into the previous version's shape. One walker (versions.walker.ts)
 * applies them wherever an object of that type appears: a response, the items of a list, an
 * event's object, a webhook payload, a customer's export.
 */

export type Json = unknown;

export interface VersionChange {
  /** One line for the changelog. */
  description: string;
  /**
   * For each resource type it touches (versions.types.ts): an object of that type in this version's
   * shape, turned into the previous version's.
   */
  toPrevious?: Readonly<Record<string, ObjectTransform>>;
  /**
   * For each resource type: an object stored in the previous version's shape (the object of an
   * event written before this version) brought to this version's. It must leave an object already
   * in this shape unchanged.
   */
  storedFromPrevious?: Readonly<Record<string, ObjectTransform>>;
}

export interface ApiVersion {
  version: string;
  release: string;
  changelog: string[];
  /** How this version differs from the one before it. */
  changes: VersionChange[];
}

const DATE_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;

export function isCalendarDate(value: string): boolean {
  const match = DATE_PATTERN.exec(value);
  if (!match) return false;
  const date = new Date(`${value}T00:00:00.000Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(value);
}

/** One version's transforms of one direction, by resource type. */
function byType(
  changes: readonly VersionChange[],
  direction: 'toPrevious' | 'storedFromPrevious',
): TransformsByType {
  const out = new Map<string, ObjectTransform[]>();
  for (const change of changes) {
    for (const [type, transform] of Object.entries(change[direction] ?? {})) {
      out.set(type, [...(out.get(type) ?? []), transform]);
    }
  }
  return out;
}

interface Step {
  version: ApiVersion;
  toPrevious: TransformsByType;
  storedFromPrevious: TransformsByType;
}

export class VersionRegistry {
  private readonly ordered: readonly ApiVersion[];
  private readonly steps: readonly Step[];
  private readonly differences = new Map<string, boolean>();

  constructor(versions: readonly ApiVersion[]) {
    if (versions.length === 0) throw new Error('at least one API version is required');
    this.ordered = [...versions].sort((a, b) => a.version.localeCompare(b.version));
    this.steps = this.ordered.map((version) => ({
      version,
      toPrevious: byType(version.changes, 'toPrevious'),
      storedFromPrevious: byType(version.changes, 'storedFromPrevious'),
    }));
  }

  get latest(): ApiVersion {
    return this.ordered[this.ordered.length - 1] as ApiVersion;
  }

  list(): readonly ApiVersion[] {
    return this.ordered;
  }

  has(version: string): boolean {
    return this.ordered.some((v) => v.version === version);
  }

  /** The newest version released on or before `date`; 400 `invalid_version` otherwise. */
  resolve(date: string): string {
    const supported = this.ordered.map((v) => v.version);
    if (!isCalendarDate(date)) {
      throw new AppError('invalid_version', `"${date}" is not a date of the form YYYY-MM-DD.`, {
        extra: { supported_versions: supported },
      });
    }
    let found: string | undefined;
    for (const v of this.ordered) if (v.version <= date) found = v.version;
    if (found === undefined) {
      throw new AppError(
        'invalid_version',
        `${date} is before the oldest supported version ${supported[0]}.`,
        {
          extra: { supported_versions: supported },
        },
      );
    }
    return found;
  }

  /**
   * Whether an object of `type` can look different in `version` than in the latest one: a later
   * version changes it or an object it holds.
   */
  differs(type: string, version: string): boolean {
    const key = `${type} ${version}`;
    let differs = this.differences.get(key);
    if (differs === undefined) {
      const reachable = reachableTypes(type);
      differs = this.steps.some(
        (step) =>
          step.version.version > version &&
          [...step.toPrevious.keys()].some(
            (touched) => touched === EVERY_TYPE || reachable === undefined || reachable.has(touched),
          ),
      );
      this.differences.set(key, differs);
    }
    return differs;
  }

  /** Rewrites a latest-shape `body` of `type` into `version`'s shape, newest version first. */
  render(type: string, body: Json, version: string): Json {
    let out = body;
    for (let i = this.steps.length - 1; i >= 0; i--) {
      const step = this.steps[i] as Step;
      if (step.version.version <= version) break;
      if (step.toPrevious.size > 0) out = walk(type, out, step.toPrevious);
    }
    return out;
  }

  /** Brings a stored `body` of `type`, in whichever version's shape it was written, to the latest shape. */
  upgradeStored(type: string, body: Json): Json {
    let out = body;
    for (const step of this.steps) {
      if (step.storedFromPrevious.size > 0) out = walk(type, out, step.storedFromPrevious);
    }
    return out;
  }
}
