/**
 * Regenerates the TypeScript client's generated files (clients/typescript/src/generated/) from the
 * OpenAPI document the server serves: `npm run client:generate`. With `--check`, writes nothing and
 * exits 1 when the committed files differ from what the document gives.
 */
import fs from 'node:fs';
import path from 'node:path';
import { servedDocument } from './client/document.js';
import { GENERATED_DIR, renderClient, ROOT } from './client/render.js';

const check = process.argv.includes('--check');
const { document, version } = await servedDocument();
const files = await renderClient(document, version);

const stale = fs
  .readdirSync(path.join(ROOT, GENERATED_DIR))
  .map((name) => `${GENERATED_DIR}/${name}`)
  .filter((file) => !(file in files));
const changed = Object.entries(files).filter(([file, text]) => {
  const full = path.join(ROOT, file);
  return !fs.existsSync(full) || fs.readFileSync(full, 'utf8') !== text;
});

if (check) {
  for (const [file] of changed) process.stderr.write(`out of date: ${file}\n`);
  for (const file of stale) process.stderr.write(`not generated: ${file}\n`);
  if (changed.length > 0 || stale.length > 0) {
    process.stderr.write('The client is out of date: run npm run client:generate\n');
    process.exit(1);
  }
  process.stdout.write(`client up to date (API version ${version})\n`);
} else {
  for (const [file, text] of changed) fs.writeFileSync(path.join(ROOT, file), text);
  for (const file of stale) fs.rmSync(path.join(ROOT, file));
  const operations = (files[`${GENERATED_DIR}/operations.ts`]?.match(/^ {2}\w+: \{/gm) ?? []).length;
  process.stdout.write(
    `client generated for API version ${version}: ${operations} operations; ${changed.length} file(s) written, ${stale.length} removed\n`,
  );
}
