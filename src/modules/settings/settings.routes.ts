import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../http/auth.js';
import { BODY_ERRORS, errorResponses } from '../../http/schemas.js';
import type { Services } from '../../kernel/module.js';
import { SettingsSchema, UpdateSettingsBody } from './settings.schemas.js';

const TAGS = ['Settings'];

export function settingsRoutes(deps: Pick<Services, 'settings'>): FastifyPluginAsyncTypebox {
  const { settings } = deps;
  return async (app) => {
    app.get(
      '/settings',
      {
        config: { auth: 'read:users' },
        schema: {
          tags: TAGS,
          summary: 'The store’s settings',
          description:
            'Its name and currency, when its unpaid orders expire, and how its storefront behaves.',
          response: { 200: SettingsSchema },
        },
      },
      async (request) => settings.get(principalOf(request).tenant.id),
    );

    app.patch(
      '/settings',
      {
        config: { auth: 'write:settings' },
        schema: {
          tags: TAGS,
          summary: 'Change the store’s settings',
          description:
            'Only the members given change, `storefront`’s too (`{"storefront": {"hold_minutes": 15}}` leaves the rest as it is); answers the settings as they now stand. The `currency` changes only while the store has no orders: after its first order it is 409 `invalid_state_transition`.',
          body: UpdateSettingsBody,
          response: { 200: SettingsSchema, ...errorResponses(...BODY_ERRORS, 409) },
        },
      },
      async (request) => settings.update(principalOf(request).tenant.id, request.body),
    );
  };
}
