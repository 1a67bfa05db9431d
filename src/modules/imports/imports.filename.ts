import { validationError } from '../../lib/errors.js';

/**
 * The name of an uploaded file. The upload's body is the file itself (not multipart), so its name
 * comes as a raw-body upload names it: the `Content-Disposition` request header (RFC 6266), e.g.
 * `attachment; filename="products.csv"`, or for a name beyond ASCII `filename*=UTF-8''na%C3%AFve.csv`
 * (RFC 8187), which wins over `filename` when both are given. Only the last segment of a path is
 * kept (`C:\exports\products.csv` is `products.csv`). No header, or one without a name: null.
 * A name that is empty, longer than MAX_FILENAME characters or holds a control character, or a
 * header that cannot be read, is refused naming the header.
 */

export const FILENAME_HEADER = 'Content-Disposition';
/** The most characters a file name may have (what common file systems allow). */
export const MAX_FILENAME = 255;

/** `token`, or a quoted string with its `\` escapes. */
const PARAMETER =
  /^;\s*([!#$%&'*+.^_`|~0-9A-Za-z-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([!#$%&'*+.^_`|~0-9A-Za-z-]+))\s*/;
const DISPOSITION_TYPE = /^\s*[!#$%&'*+.^_`|~0-9A-Za-z-]+\s*/;
/** C0 and C1 control characters and DEL. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

function refused(message: string): never {
  throw validationError(FILENAME_HEADER, message);
}

/** Node reads header bytes as Latin-1; a name a client sent as raw UTF-8 is read back as such. */
function utf8Of(latin1: string): string {
  if (!/[\u0080-\u00ff]/.test(latin1)) return latin1;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(latin1, 'latin1'));
  } catch {
    return latin1;
  }
}

/** `filename*`: `UTF-8''` (a language tag may sit between the quotes) then percent-encoded UTF-8. */
function extendedValue(value: string): string {
  const match = /^([^']*)'[^']*'(.*)$/.exec(value);
  if (!match || (match[1] ?? '').toLowerCase() !== 'utf-8') {
    refused("filename* must be UTF-8''followed by the percent-encoded name");
  }
  try {
    return decodeURIComponent(match[2] ?? '');
  } catch {
    return refused('filename* is not percent-encoded UTF-8');
  }
}

/** The header's parameters by lower-cased name; refused when it is not `type; name=value...`. */
function parametersOf(header: string): Map<string, string> {
  const type = DISPOSITION_TYPE.exec(header);
  if (!type) refused('must start with a disposition type, as in attachment; filename="products.csv"');
  let rest = header.slice(type[0].length);
  const parameters = new Map<string, string>();
  while (rest.length > 0) {
    const parameter = PARAMETER.exec(rest);
    if (!parameter) refused('must be a disposition type and name=value parameters separated by ";"');
    const [whole, name = '', quoted, token] = parameter;
    const value = quoted === undefined ? (token ?? '') : quoted.replace(/\\(.)/g, '$1');
    const key = name.toLowerCase();
    if (parameters.has(key)) refused(`must not give ${key} twice`);
    parameters.set(key, value);
    rest = rest.slice(whole.length);
  }
  return parameters;
}

/** The uploaded file's name from the request's `Content-Disposition` header, or null. */
export function filenameOf(header: string | undefined): string | null {
  if (header === undefined) return null;
  const parameters = parametersOf(header);
  const extended = parameters.get('filename*');
  const plain = parameters.get('filename');
  if (extended === undefined && plain === undefined) return null;
  const given = extended === undefined ? utf8Of(plain ?? '') : extendedValue(extended);
  if (CONTROL.test(given)) refused('filename must not hold control characters');
  const name = given.slice(Math.max(given.lastIndexOf('/'), given.lastIndexOf('\\')) + 1);
  if (name.trim() === '') refused('filename must not be empty');
  if ([...name].length > MAX_FILENAME) refused(`filename must be at most ${MAX_FILENAME} characters`);
  return name;
}
