/**
 * The description-provider interface. A provider turns product facts into marketing copy; the
 * service validates the request before and records the result after, and holds no transaction
 * while the provider works (a remote model can take seconds). The module's manifest (ai.module.ts)
 * builds the provider `AI_PROVIDER` selects: `builtin` (ai.builtin.ts) or `openai` (ai.openai.ts).
 */

export const TONES = ['professional', 'friendly', 'luxury', 'playful', 'technical'] as const;
export type Tone = (typeof TONES)[number];

export const LENGTHS = ['short', 'medium', 'long'] as const;
export type Length = (typeof LENGTHS)[number];

/** The word range each length asks for. */
export const LENGTH_WORDS: Readonly<Record<Length, { readonly min: number; readonly max: number }>> = {
  short: { min: 30, max: 60 },
  medium: { min: 80, max: 130 },
  long: { min: 180, max: 260 },
};

/** One of the product's options as it is offered: `{name: 'Size', values: ['S', 'M', 'L']}`. */
export interface OptionFact {
  name: string;
  /** In the product's order; for a stored product only values some variant in stock has (ai.facts.ts). */
  values: readonly string[];
}

/** What the text may say: nothing beyond these facts. */
export interface ProductFacts {
  name: string;
  category: string | null;
  attributes: Readonly<Record<string, string>>;
  features: readonly string[];
  /** Up to 3 options, in the product's order; empty for a product without options. */
  options: readonly OptionFact[];
}

export interface DescriptionRequest {
  product: ProductFacts;
  tone: Tone;
  length: Length;
  /** A canonical BCP 47 tag (`en`, `de-CH`). */
  language: string;
  keywords: readonly string[];
  /** 0 for the default wording; another number asks for another wording of the same input. */
  variant: number;
}

export interface DescriptionResult {
  text: string;
  /** The language the text is actually written in. */
  language: string;
  /** The model that wrote it, as the provider names it. */
  model: string;
  inputTokens: number;
  outputTokens: number;
  /** The provider hit its token limit; the text was cut back to its last full sentence. */
  truncated: boolean;
}

export interface DescriptionProvider {
  readonly name: 'builtin' | 'openai';
  /** Throws `AppError('ai_provider_error' | 'ai_provider_timeout')` when the provider fails. */
  generate(request: DescriptionRequest): Promise<DescriptionResult>;
}
