import { REQUEST_BODY_ENUMS, SCHEMA_ENUMS } from '../../clients/typescript/src/generated/enums.js';

/**
 * The lists the console offers as choices, from the OpenAPI document's enums as the generated
 * client gives them as values: the server's lists stay their one source, and a regenerated client
 * brings a new permission or event type to the forms.
 */

/** Every event type (`Event.type`): the event log's filter. */
export const EVENT_TYPES = SCHEMA_ENUMS.Event.type;
export type EventType = (typeof EVENT_TYPES)[number];

/** Every permission a key can hold (`ApiKey.permissions`). */
export const PERMISSIONS = SCHEMA_ENUMS.ApiKey.permissions;
export type Permission = (typeof PERMISSIONS)[number];

/** The marketplace's categories (`Plugin.category`). */
export const PLUGIN_CATEGORIES = SCHEMA_ENUMS.Plugin.category;

/** What a plugin may ask for: the permissions and events `POST /v1/plugins` takes. */
export const PLUGIN_PERMISSIONS = REQUEST_BODY_ENUMS.createPlugin.permissions;
export type PluginPermission = (typeof PLUGIN_PERMISSIONS)[number];
export const PLUGIN_EVENTS = REQUEST_BODY_ENUMS.createPlugin.events;
export type PluginEvent = (typeof PLUGIN_EVENTS)[number];
