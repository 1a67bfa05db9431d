/**
 * What never leaves the store in a log: secrets, tokens, passwords, password hashes and card data.
 * The audit log drops such fields from its changes; the request log replaces them (and any number
 * of 13 to 19 digits that passes the Luhn check, wherever it stands) with `[redacted]` in the bodies
 * it keeps. One list of names for both, matched on a field name's words.
 */

export const REDACTED = '[redacted]';

/**
 * Field names whose values are secret: a name is secret when one of its `_`/`-`/camelCase words is
 * one of these, or it is one of `SECRET_NAMES` whole (`key` alone is a key; `key_prefix` is not).
 */
const SECRET_WORDS = new Set([
  'secret',
  'secrets',
  'password',
  'passwords',
  'passwd',
  'passphrase',
  'token',
  'tokens',
  'cvc',
  'cvv',
  'cvv2',
  'pan',
  'pin',
  'otp',
  'authorization',
  'cookie',
  'credential',
  'credentials',
]);
const SECRET_NAMES = new Set([
  'key',
  'api_key',
  'apikey',
  'private_key',
  'card',
  'card_number',
  'cardnumber',
  'password_hash',
  'hash',
  'signing_secret',
  'client_secret',
]);

/** Names already judged (an API has few): the words of each are split once, not at every use. */
const judged = new Map<string, boolean>();
const JUDGED_AT_MOST = 10_000;

/** Whether a field of this name holds a secret (case and separators do not matter). */
export function isSecretField(name: string): boolean {
  const known = judged.get(name);
  if (known !== undefined) return known;
  const lower = name.toLowerCase();
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .split(/[_\-.\s]+/);
  const secret = SECRET_NAMES.has(lower) || words.some((word) => SECRET_WORDS.has(word));
  // Names come from callers' bodies too: past the bound, new ones are judged and not kept.
  if (judged.size < JUDGED_AT_MOST) judged.set(name, secret);
  return secret;
}

/** Whether a run of digits passes the Luhn check (card numbers do). */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

/** Runs of 13 to 19 digits, optionally split by single spaces or dashes, not inside a longer run. */
const DIGIT_RUN = /(?<![\d])\d(?:[ -]?\d){12,18}(?![\d])/g;

/** Text with every Luhn-valid run of 13 to 19 digits replaced by `[redacted]`. */
export function redactCardNumbers(text: string): string {
  if (!/\d{4}/.test(text)) return text;
  return text.replace(DIGIT_RUN, (run) => {
    const digits = run.replace(/[ -]/g, '');
    return digits.length >= 13 && digits.length <= 19 && luhnValid(digits) ? REDACTED : run;
  });
}

/** A JSON value with secret fields and card numbers replaced by `[redacted]`, at any depth. */
export function redactValue(value: unknown): unknown {
  if (typeof value === 'string') return redactCardNumbers(value);
  // A card number sent as a JSON number.
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 1e12) {
    return redactCardNumbers(String(value)) === REDACTED ? REDACTED : value;
  }
  if (Array.isArray(value)) return value.map(redactValue);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [name, member] of Object.entries(value as Record<string, unknown>)) {
      out[name] = isSecretField(name) && member !== null ? REDACTED : redactValue(member);
    }
    return out;
  }
  return value;
}

/**
 * `"name": "value"` (or a number, true/false) members of JSON text whose name may be a secret's
 * (it holds one of the words; `isSecretField` decides): a scan that stops only at such names.
 */
const MEMBER =
  /"([^"\\]{0,64}(?:secret|passw|passphrase|token|cvc|cvv|pan|pin|otp|authorization|cookie|credential|key|card|hash)[^"\\]{0,64})"\s*:\s*("(?:[^"\\]|\\.)*"?|-?\d[\d.eE+-]*|true|false)/gi;

/**
 * JSON text, or any text, redacted without parsing it: what a cut body (one over the kept size)
 * gets. Members named as secrets get `"[redacted]"`; card numbers anywhere are replaced.
 */
export function redactText(text: string): string {
  return redactCardNumbers(redactMembers(text));
}

/** JSON text with the values of its members named as secrets replaced by `"[redacted]"`. */
function redactMembers(text: string): string {
  return text.replace(MEMBER, (member, name: string, value: string) =>
    isSecretField(name) && value !== 'null' ? `"${name}":"${REDACTED}"` : member,
  );
}

/** What a cut body ends with. */
export const CUT_MARK = '…[cut]';

/**
 * `value` as JSON, secrets redacted on the way (as `redactValue`), written only up to `limit`
 * characters: a large body is never serialized whole. Past the limit the text is cut and ends
 * with `CUT_MARK` (within the limit).
 */
export function cappedJson(value: unknown, limit: number): string {
  const budget = limit - CUT_MARK.length;
  let out = '';
  const full = (): boolean => out.length > budget;
  const write = (item: unknown): void => {
    if (full()) return;
    if (item === null || item === undefined || typeof item === 'function') {
      out += 'null';
    } else if (typeof item === 'string') {
      // A long string is cut before it is escaped: escaping it whole would defeat the cap.
      out += JSON.stringify(redactCardNumbers(item.length > limit ? item.slice(0, limit) : item));
    } else if (typeof item === 'number') {
      out += JSON.stringify(redactValue(item));
    } else if (typeof item === 'boolean') {
      out += item ? 'true' : 'false';
    } else if (Array.isArray(item)) {
      out += '[';
      for (let i = 0; i < item.length && !full(); i++) {
        if (i > 0) out += ',';
        write(item[i]);
      }
      out += ']';
    } else if (typeof item === 'object') {
      if (Buffer.isBuffer(item)) {
        out += JSON.stringify(`<${item.length} bytes>`);
        return;
      }
      out += '{';
      let first = true;
      for (const name in item as Record<string, unknown>) {
        if (full()) break;
        const member = (item as Record<string, unknown>)[name];
        if (member === undefined) continue;
        if (!first) out += ',';
        first = false;
        out += `${JSON.stringify(name)}:`;
        if (isSecretField(name) && member !== null) out += JSON.stringify(REDACTED);
        else write(member);
      }
      out += '}';
    } else {
      out += JSON.stringify(String(item));
    }
  };
  write(value);
  return out.length > budget ? out.slice(0, budget) + CUT_MARK : out;
}

/**
 * What text must hold for `redactText` to change it: a secret's name (as a substring, so more than
 * those) for its members, 13 digits (with single spaces or dashes between) for a card number. Most
 * bodies hold neither (a date's four digits are no card) and are kept as they are.
 */
const SUSPECT_NAME =
  /secret|passw|passphrase|token|cvc|cvv|pan|pin|otp|authorization|cookie|credential|key|card|hash/i;
const SUSPECT_DIGITS = /\d(?:[ -]?\d){12}/;

/**
 * A body already serialized (a response's bytes), kept up to `limit` characters with its secrets
 * redacted as text (as `redactText`): never parsed and written again.
 */
export function cappedText(text: string, limit: number): string {
  const cut = text.length > limit;
  let kept = cut ? text.slice(0, limit - CUT_MARK.length) : text;
  if (SUSPECT_NAME.test(kept)) kept = redactMembers(kept);
  if (SUSPECT_DIGITS.test(kept)) kept = redactCardNumbers(kept);
  return cut ? kept + CUT_MARK : kept;
}
