import { X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from './config.js';
import { ensurePrivateDir, ensurePrivateFile } from './lib/private-files.js';

export interface TlsMaterial {
  key: string;
  cert: string;
  certPath: string;
  /** SHA-256 fingerprint of the certificate, colon-separated hex. */
  fingerprint: string;
  generated: boolean;
}

/**
 * The server's certificate: `TLS_CERT`/`TLS_KEY` when given, otherwise a self-signed one for
 * localhost and 127.0.0.1 created on first start in `DATA_DIR/tls` and reused afterwards.
 */
export async function loadTls(config: Config): Promise<TlsMaterial> {
  if (config.tls.certFile && config.tls.keyFile) {
    const cert = fs.readFileSync(config.tls.certFile, 'utf8');
    return {
      cert,
      key: fs.readFileSync(config.tls.keyFile, 'utf8'),
      certPath: config.tls.certFile,
      fingerprint: new X509Certificate(cert).fingerprint256,
      generated: false,
    };
  }
  const dir = path.join(config.dataDir, 'tls');
  const certPath = path.join(dir, 'cert.pem');
  const keyPath = path.join(dir, 'key.pem');
  let generated = false;
  if (!fs.existsSync(certPath) || !fs.existsSync(keyPath)) {
    ensurePrivateDir(dir);
    const now = new Date();
    // Loaded only to make a certificate (once per store): it costs a start some 100 ms.
    const { generate } = await import('selfsigned');
    const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
      keyType: 'ec',
      curve: 'P-256',
      algorithm: 'sha256',
      notBeforeDate: new Date(now.getTime() - 60_000),
      notAfterDate: new Date(now.getTime() + 825 * 24 * 3600 * 1000),
      extensions: [
        { name: 'basicConstraints', cA: false },
        { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
        { name: 'extKeyUsage', serverAuth: true },
        {
          name: 'subjectAltName',
          altNames: [
            { type: 2, value: 'localhost' },
            { type: 7, ip: '127.0.0.1' },
            { type: 7, ip: '::1' },
          ],
        },
      ],
    });
    fs.writeFileSync(keyPath, pems.private, { mode: 0o600 });
    fs.writeFileSync(certPath, pems.cert, { mode: 0o644 });
    generated = true;
  }
  // A key written by an earlier version, or copied in, is made 0600 too.
  ensurePrivateFile(keyPath);
  const cert = fs.readFileSync(certPath, 'utf8');
  return {
    cert,
    key: fs.readFileSync(keyPath, 'utf8'),
    certPath,
    fingerprint: new X509Certificate(cert).fingerprint256,
    generated,
  };
}
