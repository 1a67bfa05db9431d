import { Type } from 'typebox';
import { Timestamp } from '../../http/schemas.js';
import { PermissionSchema } from '../api-keys/api-keys.schemas.js';

export const CurrentUserSchema = Type.Object({
  id: Type.String(),
  email: Type.String(),
  name: Type.String(),
  role: Type.Union([Type.Literal('owner'), Type.Literal('admin'), Type.Literal('developer')]),
  created: Timestamp,
  tenant: Type.Object({
    id: Type.String(),
    name: Type.String(),
    plan: Type.Union([Type.Literal('free'), Type.Literal('pro'), Type.Literal('enterprise')]),
    api_version: Type.String(),
    currency: Type.String(),
  }),
  api_key: Type.Object({ id: Type.String(), name: Type.String(), permissions: Type.Array(PermissionSchema) }),
});
