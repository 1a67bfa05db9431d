import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../../lib/errors.js';
import { randomBase62 } from '../../lib/ids.js';
import { ensurePrivateDir } from '../../lib/private-files.js';
import { filenameOf } from './imports.filename.js';
import { csvHeader } from './imports.source.js';
import { ignoredColumns, productCsvFormat } from './imports.layouts.js';
import { MAX_IMPORT_BYTES } from './imports.schemas.js';

/**
 * Receiving an import's file. The body streams to a private spool file in DATA_DIR as it arrives
 * (never held in memory), counted (past 50 MiB: 413), hashed (the Idempotency-Key fingerprint is
 * of the hash, not of 50 MiB), and checked on the way: UTF-8 throughout, no NUL byte, and a start
 * that is a CSV header or a JSON object. A body that fails those is not a CSV or JSON Lines file
 * at all: `422 invalid_import`. The spool file goes once the request is answered; the service
 * copies it into the store first.
 */

export type UploadFormat = 'csv' | 'jsonl' | 'shopify' | 'woocommerce';

export interface Upload {
  file: string;
  bytes: number;
  sha256: string;
  format: UploadFormat;
  /** The header's columns the import will not use (another platform's file). */
  ignoredColumns: string[];
  /** The file's name, from the request's `Content-Disposition` (imports.filename.ts), or null. */
  filename: string | null;
}

/** How much of the start of a file is kept to tell what it is. */
const SNIFF_BYTES = 64 * 1024;

export const CONTENT_TYPES = { csv: 'text/csv', jsonl: 'application/x-ndjson' } as const;

const uploads = new WeakMap<FastifyRequest, Upload>();

/** The file the request's body was spooled to; undefined when it had none. */
export function uploadOf(request: FastifyRequest): Upload | undefined {
  return uploads.get(request);
}

/** Deletes the request's spool file (onResponse: however the request ended). */
export function discardUpload(request: FastifyRequest): void {
  const upload = uploads.get(request);
  if (upload) fs.rm(upload.file, { force: true }, () => undefined);
}

export function unsupportedMediaType(): AppError {
  return new AppError(
    'unsupported_media_type',
    'Send the file as the body, with "Content-Type: text/csv" or "Content-Type: application/x-ndjson" (JSON Lines), in UTF-8.',
  );
}

function tooLarge(): AppError {
  return new AppError(
    'payload_too_large',
    `The file is over the ${MAX_IMPORT_BYTES / 1024 / 1024} MiB an import may hold; split it into several imports.`,
  );
}

export function invalidImport(detail: string): AppError {
  return new AppError('invalid_import', detail);
}

function formatOf(request: FastifyRequest): 'csv' | 'jsonl' {
  const header = request.headers['content-type'] ?? '';
  const [type, ...params] = header.split(';').map((part) => part.trim().toLowerCase());
  const charset = params
    .find((param) => param.startsWith('charset='))
    ?.slice('charset='.length)
    .replace(/"/g, '');
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') throw unsupportedMediaType();
  if (type === CONTENT_TYPES.csv) return 'csv';
  if (type === CONTENT_TYPES.jsonl) return 'jsonl';
  throw unsupportedMediaType();
}

/**
 * What the start of the file is, and the columns of its header the import will not use: 422 when
 * it is no CSV (or JSON Lines) at all. `products`: another platform's header counts as its format.
 */
async function sniff(
  format: 'csv' | 'jsonl',
  start: Buffer,
  whole: boolean,
  products: boolean,
): Promise<{ format: UploadFormat; ignored: string[] }> {
  const text = start.toString('utf8');
  if (format === 'jsonl') {
    const body = text.replace(/^\ufeff/, '').trimStart();
    if (!body.startsWith('{')) {
      throw invalidImport('The body is not JSON Lines: its first line is not a JSON object.');
    }
    const end = body.indexOf('\n');
    if (end !== -1 || whole) {
      try {
        const first = JSON.parse(end === -1 ? body : body.slice(0, end)) as unknown;
        if (typeof first !== 'object' || first === null || Array.isArray(first))
          throw new Error('not an object');
      } catch {
        throw invalidImport('The body is not JSON Lines: its first line is not a JSON object.');
      }
    }
    return { format: 'jsonl', ignored: [] };
  }
  if (!whole && start.lastIndexOf(0x0a) === -1) {
    throw invalidImport(`The body is not CSV: it has no line end in its first ${SNIFF_BYTES / 1024} KiB.`);
  }
  const header = await csvHeader(start, whole);
  if (header === null || !Array.isArray(header)) {
    throw invalidImport(
      header === null
        ? 'The body is not CSV: it has no header line.'
        : `The body is not CSV: its header line ${header.message}.`,
    );
  }
  if (header.every((name) => name.trim() === ''))
    throw invalidImport('The body is not CSV: its header line is empty.');
  const columns = header.map((name) => name.trim());
  const found = products ? productCsvFormat(columns) : 'csv';
  return { format: found, ignored: ignoredColumns(found, columns) };
}

/**
 * Fastify's parser for an import's body: resolves to what the idempotency fingerprint reads (the
 * hash and size, and the file's name), and keeps the spool file for `uploadOf`. `products`: whether a Shopify or
 * WooCommerce header counts as its own format (product imports).
 */
export function spoolUpload(spoolDir: string, products: (request: FastifyRequest) => boolean) {
  return async (
    request: FastifyRequest,
    payload: Readable,
  ): Promise<{ sha256: string; bytes: number; format: UploadFormat; filename?: string }> => {
    const format = formatOf(request);
    const filename = filenameOf(request.headers['content-disposition']);
    const declared = Number(request.headers['content-length']);
    if (Number.isFinite(declared) && declared > MAX_IMPORT_BYTES) throw tooLarge();
    ensurePrivateDir(spoolDir);
    const file = path.join(spoolDir, `${randomBase62(20)}.upload`);
    const upload: Upload = { file, bytes: 0, sha256: '', format, ignoredColumns: [], filename };
    uploads.set(request, upload);
    const out = fs.createWriteStream(file, { mode: 0o600 });
    const hash = createHash('sha256');
    const decoder = new TextDecoder('utf-8', { fatal: true });
    const start: Buffer[] = [];
    let kept = 0;
    try {
      await new Promise<void>((resolve, reject) => {
        const stop = (error: unknown) => {
          payload.off('data', onData);
          payload.pause();
          out.destroy();
          reject(error);
        };
        const onData = (chunk: Buffer) => {
          upload.bytes += chunk.length;
          if (upload.bytes > MAX_IMPORT_BYTES) return stop(tooLarge());
          if (chunk.includes(0)) {
            return stop(
              invalidImport('The body is not a CSV or JSON Lines file: it holds NUL bytes (a binary file?).'),
            );
          }
          try {
            decoder.decode(chunk, { stream: true });
          } catch {
            return stop(
              invalidImport('The body is not UTF-8 text; save the file as UTF-8 and send it again.'),
            );
          }
          hash.update(chunk);
          if (kept < SNIFF_BYTES) {
            start.push(chunk.subarray(0, SNIFF_BYTES - kept));
            kept += Math.min(chunk.length, SNIFF_BYTES - kept);
          }
          if (!out.write(chunk)) {
            payload.pause();
            out.once('drain', () => payload.resume());
          }
        };
        payload.on('data', onData);
        payload.once('error', stop);
        payload.once('end', () => {
          try {
            decoder.decode();
          } catch {
            return stop(invalidImport('The body is not UTF-8 text: it ends in the middle of a character.'));
          }
          out.end((error?: Error | null) => (error ? reject(error) : resolve()));
        });
        out.once('error', stop);
      });
      if (upload.bytes === 0) throw invalidImport('The body is empty: send the file as the body.');
      const whole = upload.bytes <= SNIFF_BYTES;
      const sniffed = await sniff(format, Buffer.concat(start), whole, products(request));
      upload.format = sniffed.format;
      upload.ignoredColumns = sniffed.ignored;
      upload.sha256 = hash.digest('hex');
      // The name is part of the request an Idempotency-Key stands for (absent, as before names).
      const named = filename === null ? {} : { filename };
      return { sha256: upload.sha256, bytes: upload.bytes, format: upload.format, ...named };
    } catch (error) {
      // The spool file goes before the refusal is answered (its opening may still be under way).
      if (!out.closed) {
        out.destroy();
        await new Promise<void>((resolve) => out.once('close', () => resolve()));
      }
      uploads.delete(request);
      await fs.promises.rm(file, { force: true });
      throw error;
    }
  };
}
