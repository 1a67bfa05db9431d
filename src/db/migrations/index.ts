import type { Migration } from 'kysely';
import * as foundation from './0001_foundation.js';
import * as events from './0002_events.js';

/** Every migration, in order. Names sort lexically; a module adds its own file here. */
export const migrations: Record<string, Migration> = {
  '0001_foundation': foundation,
  '0002_events': events,
};
