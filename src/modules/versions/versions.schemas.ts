import { Type } from 'typebox';

/** The bodies and responses of `/versions`. */

const VersionSchema = Type.Object({
  version: Type.String({ examples: ['2026-12-15'] }),
  release: Type.String({ examples: ['v2.4'] }),
  latest: Type.Boolean(),
  changelog: Type.Array(Type.String()),
});

export const VersionListSchema = Type.Object(
  {
    data: Type.Array(VersionSchema, { description: 'Oldest first.' }),
    latest: Type.String(),
    pinned: Type.String({ description: 'The version the calling tenant is pinned to.' }),
    used: Type.String({ description: 'The version this request was served in (X-Service-Version).' }),
  },
  {
    examples: [
      {
        data: [
          {
            version: '2026-11-21',
            release: 'v2.4',
            latest: false,
            changelog: ['GET /wallet/balance returns `available` and `pending` instead of `balance`.'],
          },
          {
            version: '2026-12-15',
            release: 'v2.5',
            latest: true,
            changelog: [
              'Partial refunds: `POST /orders/{id}/refunds` by amount, by items (with restock) or of shipping.',
            ],
          },
        ],
        latest: '2026-12-15',
        pinned: '2026-11-21',
        used: '2026-11-21',
      },
    ],
  },
);

export const UpgradeBody = Type.Object(
  { version: Type.Optional(Type.String({ description: 'Defaults to the latest version.' })) },
  { additionalProperties: false, examples: [{ version: '2026-12-15' }] },
);

export const UpgradeResult = Type.Object(
  { previous_version: Type.String(), api_version: Type.String() },
  { examples: [{ previous_version: '2026-11-21', api_version: '2026-12-15' }] },
);
