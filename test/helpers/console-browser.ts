import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Page, type Request } from 'playwright-core';

/**
 * What the browser tests of the developer console and the shop share: Debian's Chromium driven
 * through playwright-core, the apps built as `npm run build` builds them, the two screen sizes
 * every page must fit, and steps on a page (an expression in it, waiting for it to paint or
 * settle, screenshots at both sizes, the sidebar's links).
 */

export const CHROMIUM = '/usr/bin/chromium';
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** Where the screenshots go. */
export const CONSOLE_ARTIFACTS = path.join(root, 'test-artifacts', 'console');

/** Why the browser tests cannot run here (no Chromium), or false when they can. */
export const chromiumMissing: string | false = fs.existsSync(CHROMIUM)
  ? false
  : `no Chromium at ${CHROMIUM}: install Debian's package (apt-get install chromium) to run the console's browser tests`;

export const WIDE = { width: 1280, height: 860 };
export const NARROW = { width: 390, height: 844 };

/** The web apps the server serves, built by vite as `npm run build` builds them. */
type WebApp = 'console' | 'shop';

/**
 * What each app's bundle is made of: the app, the part of the TypeScript client it imports (the
 * console its generated types and enums, the shop its browser entry), the dependencies.
 */
const SOURCES: Record<WebApp, string[]> = {
  console: ['console', 'clients/typescript/src/generated', 'package-lock.json'],
  shop: ['shop', 'clients/typescript/src', 'package-lock.json'],
};

function digestOfSources(app: WebApp): string {
  const hash = createHash('sha256');
  const add = (file: string) => {
    const stat = fs.statSync(file);
    if (stat.isDirectory()) {
      for (const name of fs.readdirSync(file).sort()) if (name !== 'node_modules') add(path.join(file, name));
    } else {
      hash.update(`${path.relative(root, file)}\0`);
      hash.update(fs.readFileSync(file));
    }
  };
  for (const source of SOURCES[app]) add(path.join(root, source));
  return hash.digest('hex');
}

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Builds a web app into dist/<app> (the console into dist/console, the shop into dist/shop), as
 * `npm run build` does, so the server serves this code. Test files run side by side: one builds an
 * app at a time (a build empties the folder first, under a server another file is using), and a
 * build of the same sources is not made again: the digest of the sources the last build was made
 * from is kept beside it (a dot file: never served).
 */
export function buildWebApp(app: WebApp): string {
  const dist = path.join(root, 'dist', app);
  const stamp = path.join(dist, '.sources-sha256');
  /** Held while one test process builds: another waits, then finds the build up to date. */
  const lock = path.join(root, 'dist', `.${app}-build.lock`);
  fs.mkdirSync(path.dirname(lock), { recursive: true });
  const deadline = Date.now() + 180_000;
  for (;;) {
    try {
      fs.mkdirSync(lock);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      // A lock older than any build is one a killed run left behind.
      const age = Date.now() - (fs.statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > 120_000) fs.rmSync(lock, { recursive: true, force: true });
      if (Date.now() > deadline)
        throw new Error(`another test has been building the ${app} for 3 minutes (${lock})`);
      sleep(200);
    }
  }
  try {
    const digest = digestOfSources(app);
    const built = fs.existsSync(path.join(dist, 'index.html')) && fs.existsSync(stamp);
    if (built && fs.readFileSync(stamp, 'utf8') === digest) return dist;
    const result = spawnSync(
      path.join(root, 'node_modules', '.bin', 'vite'),
      ['build', '--config', `${app}/vite.config.ts`, '--logLevel', 'warn'],
      // The shop as `npm run build` makes it (its size is measured): tests run with NODE_ENV=test,
      // which would make vite bundle React's development build.
      {
        cwd: root,
        encoding: 'utf8',
        ...(app === 'shop' ? { env: { ...process.env, NODE_ENV: 'production' } } : {}),
      },
    );
    if (result.status !== 0) throw new Error(`vite build failed:\n${result.stdout}\n${result.stderr}`);
    fs.writeFileSync(stamp, digest);
    return dist;
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}

/** Builds the console into dist/console (see buildWebApp). */
export function buildConsole(): void {
  buildWebApp('console');
}

/** Headless Chromium, without what would reach the network on its own. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

/** An expression evaluated in the page (as text: the tests are type-checked without the DOM library). */
export function inPage<T>(page: Page, expression: string): Promise<T> {
  return page.evaluate<T>(expression);
}

/** Once the page has painted twice: what it had queued (an answer, an event's effects) is done. */
export async function painted(page: Page): Promise<void> {
  await inPage(page, 'new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))');
}

/**
 * Reads `read()` until `done` holds for what it read, or for 15 s (the page's own timeout), and
 * returns the last value read: the state a page reaches after a re-render, for an assertion.
 */
export async function settled<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * The requests whose URL `url` matches that the page sends while its clock runs `ms` ahead at once,
 * every timer due meanwhile firing in its turn: how a test shows that a page asks for something no
 * more (a refresh stopped), without waiting that long. The page's context must have its clock
 * installed (`context.clock.install()`, before the page set its timers). The timers' requests are
 * sent before a request the page makes afterwards: once that one is seen, so are they.
 */
export async function requestsWhileTimeRuns(page: Page, url: RegExp, ms: number): Promise<string[]> {
  const seen: string[] = [];
  const watch = (request: Request) => {
    if (url.test(request.url())) seen.push(request.url());
  };
  page.on('request', watch);
  try {
    await page.clock.runFor(ms);
    const marker = `/healthz?after-timers=${ms}`;
    await Promise.all([
      page.waitForRequest((request) => request.url().endsWith(marker)),
      inPage(page, `void fetch(${JSON.stringify(marker)})`),
    ]);
  } finally {
    page.off('request', watch);
  }
  return seen;
}

/**
 * A full-page screenshot at the phone's and the laptop's width (the wide one last, as a test goes
 * on there), to `${file}-${width}.png`, once the page fits: nothing may scroll sideways.
 */
export async function screenshotsAtBothWidths(page: Page, name: string, file: string): Promise<void> {
  for (const viewport of [NARROW, WIDE]) {
    await page.setViewportSize(viewport);
    // What lays itself out again at the new width (a chart) does so; then the page must fit.
    await painted(page);
    const overflow = await settled(
      () => inPage<number>(page, 'document.documentElement.scrollWidth - window.innerWidth'),
      (px) => px <= 0,
    );
    assert.ok(overflow <= 0, `${name} scrolls sideways by ${overflow}px at ${viewport.width}px`);
    await page.screenshot({ path: `${file}-${viewport.width}.png`, fullPage: true });
  }
}

/** Follows the sidebar's link to a page, and waits for the page's heading. */
export async function navigate(page: Page, label: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: label }).click();
  await page.getByRole('heading', { level: 1, name: label }).waitFor();
}
