import { defineModule } from '../../kernel/module.js';
import { eventRoutes } from './events.routes.js';
import { eventSchemas } from './events.schemas.js';
import { createEventService, type EventService } from './events.service.js';

/**
 * The event log and outbox: every change writes its events in its own transaction, and each
 * module's effects run there too. The event types are the modules' own (their manifests' `events`).
 */

declare module '../../kernel/module.js' {
  interface Services {
    events: EventService;
  }
}

export default defineModule({
  name: 'events',
  position: 90,
  tags: [{ name: 'Events', description: 'The event log: every change, as webhooks deliver it' }],
  operationIds: {
    'GET /v1/events': 'listEvents',
    'GET /v1/events/:id': 'getEvent',
  },
  components: (vocabulary) => {
    const { EventSchema, EventListSchema } = eventSchemas(vocabulary);
    return { Event: EventSchema, EventList: EventListSchema };
  },
  services: (deps) => ({ events: createEventService(deps) }),
  routes: [{ plugin: eventRoutes }],
});
