import type { OptionFact } from './ai.provider.js';

/**
 * Which of a stored product's option values the description may name. A value is offered when
 * some variant in stock has it: a size sold out in every colour is not advertised. When nothing
 * is in stock at all, the values of every variant are kept (the product is still for sale, only
 * not right now). A value no variant has at all is never named: nobody can buy it. The tally
 * takes the variants page by page, so the service reads past the first 100 only while a value
 * is still unaccounted for.
 */

interface OptionInput {
  name: string;
  values: readonly string[];
}

interface VariantInput {
  options: Readonly<Record<string, string>>;
  stock: number;
}

export class OptionTally {
  private readonly inStock: Set<string>[];
  private readonly carried: Set<string>[];
  private anyInStock = false;

  constructor(private readonly options: readonly OptionInput[]) {
    this.inStock = options.map(() => new Set());
    this.carried = options.map(() => new Set());
  }

  add(variants: readonly VariantInput[]): void {
    for (const variant of variants) {
      const available = variant.stock > 0;
      if (available) this.anyInStock = true;
      this.options.forEach((option, i) => {
        const value = variant.options[option.name];
        if (value === undefined) return;
        this.carried[i]?.add(value);
        if (available) this.inStock[i]?.add(value);
      });
    }
  }

  /** Every value of every option has a variant in stock: more variants cannot change the result. */
  complete(): boolean {
    return this.options.every((option, i) => option.values.every((value) => this.inStock[i]?.has(value)));
  }

  /** The options with the values they are offered in, in the product's order; an option left with none is left out. */
  offered(): OptionFact[] {
    const sets = this.anyInStock ? this.inStock : this.carried;
    return this.options
      .map((option, i) => ({
        name: option.name,
        values: option.values.filter((value) => sets[i]?.has(value)),
      }))
      .filter((option) => option.values.length > 0);
  }
}
