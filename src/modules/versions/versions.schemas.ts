import { Type } from 'typebox';

/** The bodies and responses of `/versions`. */

const VersionSchema = Type.Object({
  version: Type.String({ examples: ['2026-12-15'] }),
  release: Type.String({ examples: ['v2.4'] }),
  latest: Type.Boolean(),
  changelog: Type.Array(Type.String()),
});

export const VersionListSchema = Type.Object({
  data: Type.Array(VersionSchema, { description: 'Oldest first.' }),
  latest: Type.String(),
  pinned: Type.String({ description: 'The version the calling tenant is pinned to.' }),
  used: Type.String({ description: 'The version this request was served in (X-Service-Version).' }),
});

export const UpgradeBody = Type.Object(
  { version: Type.Optional(Type.String({ description: 'Defaults to the latest version.' })) },
  { additionalProperties: false },
);

export const UpgradeResult = Type.Object({ previous_version: Type.String(), api_version: Type.String() });
