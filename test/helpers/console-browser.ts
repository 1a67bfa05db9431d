import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';

/**
 * What the developer console's browser tests share: Debian's Chromium driven through
 * playwright-core, the console built as `npm run build` builds it, the two screen sizes every page
 * must fit, and steps on a page (an expression in it, waiting for it to paint or settle,
 * screenshots at both sizes, the sidebar's links).
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

const DIST = path.join(root, 'dist', 'console');
/** The digest of the sources the last build here was made from, beside it (a dot file: never served). */
const STAMP = path.join(DIST, '.sources-sha256');
/** Held while one test process builds: another waits, then finds the build up to date. */
const LOCK = path.join(root, 'dist', '.console-build.lock');
/** What the bundle is made of: the app, the generated client it imports (types, enums), the dependencies. */
const SOURCES = ['console', 'clients/typescript/src/generated', 'package-lock.json'];

function digestOfSources(): string {
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
  for (const source of SOURCES) add(path.join(root, source));
  return hash.digest('hex');
}

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Builds the console into dist/console, as `npm run build` does, so the server serves this code.
 * Test files run side by side: one builds at a time (a build empties the folder first, under a
 * server another file is using), and a build of the same sources is not made again.
 */
export function buildConsole(): void {
  fs.mkdirSync(path.dirname(LOCK), { recursive: true });
  const deadline = Date.now() + 180_000;
  for (;;) {
    try {
      fs.mkdirSync(LOCK);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      // A lock older than any build is one a killed run left behind.
      const age = Date.now() - (fs.statSync(LOCK, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > 120_000) fs.rmSync(LOCK, { recursive: true, force: true });
      if (Date.now() > deadline)
        throw new Error(`another test has been building the console for 3 minutes (${LOCK})`);
      sleep(200);
    }
  }
  try {
    const digest = digestOfSources();
    const built = fs.existsSync(path.join(DIST, 'index.html')) && fs.existsSync(STAMP);
    if (built && fs.readFileSync(STAMP, 'utf8') === digest) return;
    const result = spawnSync(
      path.join(root, 'node_modules', '.bin', 'vite'),
      ['build', '--config', 'console/vite.config.ts', '--logLevel', 'warn'],
      { cwd: root, encoding: 'utf8' },
    );
    if (result.status !== 0) throw new Error(`vite build failed:\n${result.stdout}\n${result.stderr}`);
    fs.writeFileSync(STAMP, digest);
  } finally {
    fs.rmSync(LOCK, { recursive: true, force: true });
  }
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
