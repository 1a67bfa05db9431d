import { defineModule } from '../../kernel/module.js';
import { type AppRuntime, createAppRuntime, injectCaller } from './apps.runtime.js';

/**
 * The first-party apps (AI Autowriter, Sold-out hider): plugins the platform runs itself, served by
 * the webhook worker in process and acting through the HTTP API like any other app.
 */

declare module '../../kernel/module.js' {
  interface Services {
    /** The first-party apps, served by the webhook worker; they call the API the HTTP app lends them. */
    apps: AppRuntime;
  }
}

export default defineModule({
  name: 'apps',
  position: 115,
  services: (deps) => ({ apps: createAppRuntime(deps) }),
  // The first-party apps call the API through this app, with their installation tokens.
  ready: ({ apps }, app) => apps.attach(injectCaller(app)),
});
