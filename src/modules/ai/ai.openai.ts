import { setTimeout as sleep } from 'node:timers/promises';
import { AppError } from '../../lib/errors.js';
import type { Logger } from '../../lib/logger.js';
import {
  type DescriptionProvider,
  type DescriptionRequest,
  type DescriptionResult,
  type Length,
  LENGTH_WORDS,
  type Tone,
} from './ai.provider.js';
import { languageName, trimToLastSentence } from './ai.text.js';

/**
 * The `openai` provider: any OpenAI-compatible chat-completions server (OpenAI, Ollama, vLLM,
 * LM Studio, ...) over plain fetch. One deadline (`AI_TIMEOUT_MS`) covers the whole call,
 * retry included, so a caller never waits longer than that. A 429, a 5xx or a connection failure
 * is retried once (after `Retry-After` when the server gives one that fits in the deadline);
 * anything else that is not a usable completion is `502 ai_provider_error` at once (a redirect,
 * which is never followed, and a body over `MAX_BODY_BYTES`, which is not read further, included),
 * and running out of time is `504 ai_provider_timeout`. What the provider said is logged, never
 * shown to the caller.
 */

export const DEFAULT_BASE_URL = 'https://api.openai.com/v1';
export const DEFAULT_MODEL = 'gpt-4o-mini';
const RETRY_DELAY_MS = 300;
const LOGGED_BODY_CHARS = 500;
/** The largest reply read: a completion of the longest length is a few kilobytes. */
export const MAX_BODY_BYTES = 1024 * 1024;
/** The longest model name reported; a longer one is cut. */
export const MAX_MODEL_CHARS = 200;

export interface OpenAiOptions {
  baseUrl: string | undefined;
  apiKey: string | undefined;
  model: string | undefined;
  timeoutMs: number;
}

const TONE_GUIDES: Readonly<Record<Tone, string>> = {
  professional: 'professional: clear, confident and credible, without hype',
  friendly: 'friendly: warm, upbeat and conversational, speaking to the reader as "you"',
  luxury: 'luxurious: refined, elegant and evocative, understated rather than loud',
  playful: 'playful: witty, light-hearted and energetic, with a touch of humor',
  technical: 'technical: precise and specification-led, with little marketing language',
};

/** Room for the longest text of each length in any language, with a margin (about 2.5 tokens a word). */
export function maxTokensFor(length: Length): number {
  return Math.ceil(LENGTH_WORDS[length].max * 2.5);
}

export interface ChatMessage {
  role: 'system' | 'user';
  content: string;
}

export function buildMessages(request: DescriptionRequest): ChatMessage[] {
  const { min, max } = LENGTH_WORDS[request.length];
  const { product } = request;
  const system = [
    'You write product descriptions for an online store.',
    `Write in ${languageName(request.language)} (language tag ${request.language}).`,
    `Tone: ${TONE_GUIDES[request.tone]}.`,
    `Length: ${min} to ${max} words${request.length === 'long' ? ', in two or three paragraphs' : ''}.`,
    'Use only the facts given. Never invent materials, measurements, certifications, awards, prices, ' +
      'availability, shipping, warranties or any other detail that is not listed.',
    ...(request.keywords.length > 0
      ? ['Work every keyword listed into the text naturally, word for word.']
      : []),
    ...(request.variant > 0
      ? [
          `This is alternative wording number ${request.variant}: phrase it differently from the usual version.`,
        ]
      : []),
    'Reply with the description only: plain text, no title, no headings, no lists, no markdown, ' +
      'no quotation marks around it, and no introduction or comment.',
  ].join('\n');
  const facts = [`Product name: ${product.name}`];
  if (product.category) facts.push(`Category: ${product.category}`);
  const attributes = Object.entries(product.attributes);
  if (attributes.length > 0) {
    facts.push('Attributes:', ...attributes.map(([key, value]) => `- ${key}: ${value}`));
  }
  if (product.options.length > 0) {
    // Only the values on offer reach here (ai.facts.ts): the model may name them all.
    facts.push(
      'Options (the choices it is available in):',
      ...product.options.map((option) => `- ${option.name}: ${option.values.join(', ')}`),
    );
  }
  if (product.features.length > 0) facts.push('Features:', ...product.features.map((f) => `- ${f}`));
  if (request.keywords.length > 0) facts.push(`Keywords: ${request.keywords.join(', ')}`);
  return [
    { role: 'system', content: system },
    { role: 'user', content: facts.join('\n') },
  ];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function tokens(value: unknown): number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : 0;
}

/** `content` is a string, or (some servers) a list of `{type: "text", text}` parts. */
function contentText(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  const parts = content.filter(isRecord).map((part) => (typeof part.text === 'string' ? part.text : ''));
  return parts.length > 0 ? parts.join('') : undefined;
}

/** Control characters but the newline: `\p{Cc}` except `\n`. */
const CONTROL = /[^\P{Cc}\n]/gu;

/**
 * Drops what chat models wrap around the text: reasoning blocks, quotes, control characters and
 * markdown (headings, list markers, rules, quotes, code, links, emphasis), so the description is
 * plain text. Emphasis is unwrapped only when its markers pair up around a word or phrase, so
 * `snake_case` and `2 * 3` stay as they are.
 */
export function cleanCompletion(text: string): string {
  let out = text
    .replace(/\r\n?/g, '\n')
    .replace(/<think>[\s\S]*?(<\/think>|$)/g, '')
    .replace(/\t/g, ' ')
    .replace(CONTROL, '')
    .replace(/^ *(?:```|~~~).*$/gm, '')
    .replace(/^ *([-*_])(?: *\1){2,} *$/gm, '')
    .replace(/^ *#{1,6}(?: +(.*?))??(?: +#+)? *$/gm, '$1')
    .replace(/^ *(?:> ?)+/gm, '')
    .replace(/^ *(?:[-*+•]|\d{1,3}[.)]) +/gm, '')
    .replace(/!?\[([^\]\n]*)\]\((?:[^()\s]|\([^()\s]*\))*(?: +"[^"\n]*")?\)/g, '$1')
    .replace(/(`+)([^`\n]+?)\1(?!`)/g, '$2')
    .replace(/\*\*|__/g, '')
    .replace(/(^|[^\p{L}\p{N}*])\*(?![\s*])([^*\n]*?[^\s*])\*(?![\p{L}\p{N}*])/gmu, '$1$2')
    .replace(/(^|[^\p{L}\p{N}_])_(?![\s_])([^_\n]*?[^\s_])_(?![\p{L}\p{N}_])/gmu, '$1$2')
    .replace(/ +\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  if (/^(["“«]).*(["”»])$/s.test(out) && !/["“”«»]/.test(out.slice(1, -1))) out = out.slice(1, -1).trim();
  return out;
}

/** `retry-after-ms` (OpenAI) or `retry-after` in seconds; HTTP dates are not used. */
function retryAfterMs(headers: Headers): number | undefined {
  const ms = Number(headers.get('retry-after-ms'));
  if (headers.has('retry-after-ms') && Number.isFinite(ms) && ms >= 0) return ms;
  const seconds = headers.get('retry-after');
  return seconds !== null && /^\d+(\.\d+)?$/.test(seconds.trim()) ? Number(seconds) * 1000 : undefined;
}

/** The model the provider names, without control characters and at most `MAX_MODEL_CHARS` long. */
function modelName(value: unknown, fallback: string): string {
  if (typeof value !== 'string') return fallback;
  const name = [...value.replace(CONTROL, '').trim()].slice(0, MAX_MODEL_CHARS).join('').trim();
  return name === '' ? fallback : name;
}

/** Stops reading a reply; cancelling its body aborts the request, which closes the connection. */
async function discard(response: Response): Promise<void> {
  await response.body?.cancel().catch(() => undefined);
}

/**
 * The body as text, or undefined when it holds more than `limit` bytes: reading stops there and
 * the request is aborted, so an endless or huge reply costs at most `limit` bytes of memory.
 */
async function readBody(response: Response, limit: number): Promise<string | undefined> {
  if (Number(response.headers.get('content-length')) > limit) {
    await discard(response);
    return undefined;
  }
  if (response.body === null) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}

export function createOpenAiProvider(options: OpenAiOptions, logger: Logger): DescriptionProvider {
  const url = `${(options.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, '')}/chat/completions`;
  const model = options.model ?? DEFAULT_MODEL;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json',
    ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
  };

  function failure(detail: string, log: Record<string, unknown>): AppError {
    logger.warn({ provider: 'openai', url, ...log }, `AI provider error: ${detail}`);
    return new AppError('ai_provider_error', detail);
  }

  function timeout(): AppError {
    logger.warn({ provider: 'openai', url, timeoutMs: options.timeoutMs }, 'AI provider timed out');
    return new AppError(
      'ai_provider_timeout',
      `The AI provider did not answer within ${options.timeoutMs} ms.`,
    );
  }

  function parse(status: number, text: string, request: DescriptionRequest): DescriptionResult {
    const body = text.slice(0, LOGGED_BODY_CHARS);
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      throw failure('The AI provider answered with a body that is not JSON.', { status, body });
    }
    const choice = isRecord(data) && Array.isArray(data.choices) ? (data.choices[0] as unknown) : undefined;
    const message = isRecord(choice) ? choice.message : undefined;
    const content = isRecord(message) ? contentText(message.content) : undefined;
    if (!isRecord(data) || !isRecord(choice) || content === undefined) {
      throw failure('The AI provider answered without a completion.', { status, body });
    }
    const finishReason = typeof choice.finish_reason === 'string' ? choice.finish_reason : null;
    if (finishReason === 'content_filter') {
      throw failure('The AI provider declined to write this description (content filter).', { status, body });
    }
    const truncated = finishReason === 'length';
    const cleaned = cleanCompletion(content);
    const description = truncated ? trimToLastSentence(cleaned) : cleaned;
    if (description === '')
      throw failure('The AI provider returned an empty text.', { status, body, finishReason });
    const usage = isRecord(data.usage) ? data.usage : {};
    return {
      text: description,
      language: request.language,
      model: modelName(data.model, model),
      inputTokens: tokens(usage.prompt_tokens),
      outputTokens: tokens(usage.completion_tokens),
      truncated,
    };
  }

  return {
    name: 'openai',
    async generate(request) {
      const payload = JSON.stringify({
        model,
        messages: buildMessages(request),
        max_tokens: maxTokensFor(request.length),
        temperature: 0.7,
        // Same input and variant, same sampling seed: as repeatable as the server allows.
        seed: request.variant,
        n: 1,
      });
      const deadline = performance.now() + options.timeoutMs;
      const signal = AbortSignal.timeout(options.timeoutMs);
      for (let attempt = 1; ; attempt++) {
        const retry = attempt === 1;
        let status: number;
        let responseHeaders: Headers;
        let text: string | undefined;
        try {
          const response = await fetch(url, {
            method: 'POST',
            headers,
            body: payload,
            signal,
            // A redirect is answered as it is, never followed: the request carries the API key.
            redirect: 'manual',
          });
          status = response.status;
          responseHeaders = response.headers;
          if (status >= 300 && status <= 399) await discard(response);
          else text = await readBody(response, MAX_BODY_BYTES);
        } catch (error) {
          if (signal.aborted) throw timeout();
          if (retry) {
            await sleep(RETRY_DELAY_MS, undefined, { signal }).catch(() => undefined);
            if (signal.aborted) throw timeout();
            continue;
          }
          throw failure('The AI provider could not be reached.', { err: error });
        }
        if (status >= 300 && status <= 399) {
          throw failure(`The AI provider answered with a redirect (${status}), which is not followed.`, {
            status,
            location: responseHeaders.get('location'),
          });
        }
        if (text === undefined) {
          throw failure(`The AI provider answered with more than ${MAX_BODY_BYTES} bytes.`, {
            status,
            limit: MAX_BODY_BYTES,
          });
        }
        if (status === 429 || status >= 500) {
          const wait = retryAfterMs(responseHeaders) ?? RETRY_DELAY_MS;
          if (retry && performance.now() + wait < deadline) {
            await sleep(wait, undefined, { signal }).catch(() => undefined);
            if (signal.aborted) throw timeout();
            continue;
          }
          throw failure(
            status === 429
              ? 'The AI provider is rate limiting requests (429).'
              : `The AI provider failed (${status}).`,
            { status, attempts: attempt, body: text.slice(0, LOGGED_BODY_CHARS) },
          );
        }
        if (status < 200 || status > 299) {
          throw failure(`The AI provider refused the request (${status}).`, {
            status,
            body: text.slice(0, LOGGED_BODY_CHARS),
          });
        }
        return parse(status, text, request);
      }
    },
  };
}
