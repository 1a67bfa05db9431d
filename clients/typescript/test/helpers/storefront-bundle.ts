import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Message } from 'esbuild';

const CLIENT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const ROOT = path.resolve(CLIENT, '../..');

/** The client's entry for pages, and the full client's. */
export const STOREFRONT_ENTRY = path.join(CLIENT, 'src', 'storefront.ts');
export const FULL_ENTRY = path.join(CLIENT, 'src', 'index.ts');

export interface Bundle {
  /** The bundle: one ES module. */
  code: string;
  /** The files it was made of, relative to the repository. */
  inputs: string[];
}

/**
 * `entry` bundled as a shop's bundler would for a page: esbuild for `platform: 'browser'`, which
 * refuses a Node built-in (`node:crypto`, and what undici needs) with "Could not resolve". Throws
 * an Error listing esbuild's messages when it cannot.
 */
export async function bundleForBrowser(entry: string): Promise<Bundle> {
  try {
    const result = await build({
      entryPoints: [entry],
      bundle: true,
      platform: 'browser',
      format: 'esm',
      target: 'es2022',
      minify: true,
      write: false,
      metafile: true,
      logLevel: 'silent',
      absWorkingDir: ROOT,
    });
    const code = result.outputFiles[0]?.text ?? '';
    return { code, inputs: Object.keys(result.metafile.inputs).sort() };
  } catch (error) {
    const messages = (error as { errors?: Message[] }).errors ?? [];
    throw new Error(
      messages.length > 0
        ? messages.map((message) => `${message.location?.file ?? ''}: ${message.text}`).join('\n')
        : String(error),
    );
  }
}
