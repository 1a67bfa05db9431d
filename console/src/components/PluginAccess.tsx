import { humanize } from '../format.js';
import { Chips } from './Badge.js';

/** `read:products` -> what a plugin may read; `write:products` / `write:ai` -> what it may change or use. */
function split(permissions: readonly string[]): { reads: string[]; writes: string[] } {
  const reads: string[] = [];
  const writes: string[] = [];
  for (const permission of permissions) {
    const [verb, area = permission] = permission.split(':');
    const word = area === 'ai' ? 'AI descriptions' : humanize(area).toLowerCase();
    (verb === 'read' ? reads : writes).push(word);
  }
  return { reads, writes };
}

/**
 * What a plugin is (or would be) allowed: the store data it can read, what it can change, and the
 * events it receives, in words, with the exact permissions and event names beside them.
 */
export function PluginAccess({
  permissions,
  events,
  max,
}: {
  permissions: readonly string[];
  events: readonly string[];
  max?: number;
}) {
  const { reads, writes } = split(permissions);
  return (
    <dl className="plugin-grants">
      <div>
        <dt>Can read</dt>
        <dd>{reads.length > 0 ? reads.join(', ') : 'Nothing'}</dd>
      </div>
      <div>
        <dt>Can change</dt>
        <dd>{writes.length > 0 ? writes.join(', ') : 'Nothing'}</dd>
      </div>
      <div>
        <dt>Receives</dt>
        <dd>{events.length > 0 ? <Chips items={events} max={max} /> : 'No events'}</dd>
      </div>
      <div>
        <dt>Permissions</dt>
        <dd>{permissions.length > 0 ? <Chips items={permissions} max={max} /> : 'None'}</dd>
      </div>
    </dl>
  );
}
