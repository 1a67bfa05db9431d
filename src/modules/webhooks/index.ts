/**
 * The webhooks module's face: what other modules and the house may use of it. Anything not
 * here is the module's own (the lint's no-restricted-imports refuses an import of it).
 */
export { withoutSecret } from './webhooks.presenter.js';
export { DeliverySchema, MAX_URL_LENGTH } from './webhooks.schemas.js';
export type { WebhookService } from './webhooks.service.js';
export {
  type AttemptResult,
  SECRET_PREFIX,
  type Transport,
  newSecret,
  signature,
} from './webhooks.transport.js';
