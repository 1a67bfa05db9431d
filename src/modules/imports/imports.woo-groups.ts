import { MAX_OPTIONS } from '../products/index.js';
import type { FileItem } from './imports.rows.js';
import { fail, type ProductChecker, type ProductGroup } from './imports.product-groups.js';
import type { ProductLine } from './imports.product-lines.js';
import { attributesOf, type WooLine, wooType } from './imports.woocommerce.js';

/**
 * A WooCommerce file's rows gathered into products. Its exporter writes products and variations by
 * id, so a variation may come anywhere after (or before) its product, with other products between.
 * A first look at the file (`prescanWoo`: the type, ID, SKU and Parent of each row, nothing else
 * kept) tells which rows belong together and on which row each product is complete; the grouper
 * then holds a variable product's rows only until that row, and answers every product on the row
 * that completes it, so products come out in the order of their last rows, as the runner's
 * progress (`position`) counts them.
 *
 * A variable product's options are the attributes its variations choose a value of; an attribute
 * every variation leaves open ("any Size") is the product's own (`attributes`), as are a simple
 * product's attributes.
 */

/** Which rows of the file belong together, by data row number. */
export interface WooPrescan {
  /** Each variation's product (its row number). */
  parentOf: Map<number, number>;
  /** Each variable product's last row: its own, or its last variation's. */
  lastOf: Map<number, number>;
}

/** The file's variable products and variations, without keeping their rows. */
export async function prescanWoo(items: AsyncIterable<FileItem>): Promise<WooPrescan> {
  const byId = new Map<string, number>();
  const bySku = new Map<string, number>();
  const variations: [number, string][] = [];
  for await (const item of items) {
    if (item.kind !== 'row') continue;
    const text = (column: string) => {
      const value = item.cells.get(column);
      return typeof value === 'string' ? value.trim() : '';
    };
    const { type } = wooType(text('Type'));
    if (type === 'variable') {
      if (text('ID') !== '') byId.set(text('ID'), item.n);
      if (text('SKU') !== '') bySku.set(text('SKU').toLowerCase(), item.n);
    } else if (type === 'variation') variations.push([item.n, text('Parent')]);
  }
  const parentOf = new Map<number, number>();
  const lastOf = new Map<number, number>();
  for (const n of [...byId.values(), ...bySku.values()]) lastOf.set(n, n);
  for (const [n, ref] of variations) {
    const id = /^id:(\d+)$/i.exec(ref)?.[1];
    const parent = id !== undefined ? byId.get(id) : bySku.get(ref.toLowerCase());
    if (parent === undefined) continue;
    parentOf.set(n, parent);
    lastOf.set(parent, Math.max(lastOf.get(parent) ?? parent, n));
  }
  return { parentOf, lastOf };
}

interface Open {
  head: WooLine | undefined;
  variations: WooLine[];
}

/** The product a row makes alone, with nothing of it written. */
function single(line: ProductLine): ProductGroup {
  return { handle: '', lines: [line], passive: [], optionNames: undefined, values: new Map(), fatal: true };
}

/** An attribute of a variation, by name as its product names it (case aside). */
function attributeOf(line: WooLine, name: string) {
  const key = name.toLocaleLowerCase('und');
  return line.woo.attributes.find((attribute) => attribute.name.toLocaleLowerCase('und') === key);
}

export class WooGrouper {
  private readonly open = new Map<number, Open>();

  constructor(
    private readonly checker: ProductChecker,
    private readonly scan: WooPrescan,
  ) {}

  /** Adds a row; answers the products it completes. */
  push(line: WooLine): ProductGroup[] {
    const type = line.woo.type;
    if (type === null) return [single(line)];
    if (type === 'grouped' || type === 'external') {
      fail(
        line,
        'type',
        type === 'grouped'
          ? 'is a grouped product, which has no price or stock of its own: its products come in on their own rows'
          : 'is an external product, sold on another site: a store here sells what it holds',
      );
      return [single(line)];
    }
    if (type === 'simple') return [this.close({ head: undefined, variations: [line] }, false)];
    const key = type === 'variable' ? line.n : this.scan.parentOf.get(line.n);
    if (key === undefined) {
      fail(
        line,
        'parent',
        `names no variable product of the file ("${line.woo.parent ?? ''}"): a variation's Parent is its product's SKU, or id: and its ID`,
      );
      return [single(line)];
    }
    const entry = this.open.get(key) ?? { head: undefined, variations: [] };
    if (type === 'variable') entry.head = line;
    else entry.variations.push(line);
    this.open.set(key, entry);
    if (this.scan.lastOf.get(key) !== line.n) return [];
    this.open.delete(key);
    return [this.close(entry, true)];
  }

  /** Products still open (none, when the first look saw the same file). */
  end(): ProductGroup[] {
    const rest = [...this.open.values()];
    this.open.clear();
    return rest.map((entry) => this.close(entry, true));
  }

  private close(entry: Open, variable: boolean): ProductGroup {
    const { head, variations } = entry;
    const lines: ProductLine[] = variations;
    const group: ProductGroup = {
      handle: `#${(head ?? variations[0])?.woo.id ?? ''}`,
      ...(variable && head ? { head } : {}),
      lines,
      passive: [],
      optionNames: undefined,
      values: new Map(),
      fatal: false,
    };
    if (variable) {
      if (head === undefined) {
        for (const line of variations) fail(line, 'parent', 'names a product that is not in the file');
        return { ...group, fatal: true };
      }
      this.options(head, variations);
      if (variations.length === 0) {
        fail(head, 'type', 'is a variable product without variations in the file: it has nothing to sell');
      }
    }
    this.checker.check(group);
    return group;
  }

  /**
   * A variable product's options: the attributes its variations choose a value of, in the
   * product's order. Sets the rows' option names and values as a file of ours would give them.
   */
  private options(head: WooLine, variations: WooLine[]): void {
    const names = [
      ...new Set(
        [...head.woo.attributes, ...variations.flatMap((line) => line.woo.attributes)].map((a) => a.name),
      ),
    ].filter(
      (name, index, all) =>
        all.findIndex((other) => other.toLocaleLowerCase('und') === name.toLocaleLowerCase('und')) === index,
    );
    const options: string[] = [];
    const own: WooLine['woo']['attributes'] = [];
    for (const name of names) {
      const chosen = variations.filter((line) => (attributeOf(line, name)?.value ?? '') !== '');
      if (variations.length > 0 && chosen.length === variations.length) {
        options.push(name);
        continue;
      }
      const headAttribute = attributeOf(head, name);
      if (headAttribute) own.push(headAttribute);
      for (const line of variations) {
        if (chosen.length === 0 || chosen.includes(line)) continue;
        const column = attributeOf(line, name)?.index ?? headAttribute?.index ?? 1;
        fail(
          line,
          `attribute${column}_value`,
          `leaves ${name} open (any ${name}), but other variations of the product choose one: here each variation has a value of each of its product's options`,
        );
      }
    }
    head.own.attributes = attributesOf(own);
    if (options.length > MAX_OPTIONS) {
      const extra = attributeOf(head, options[MAX_OPTIONS] as string)?.index ?? MAX_OPTIONS + 1;
      fail(
        head,
        `attribute${extra}_name`,
        `is a ${MAX_OPTIONS + 1}th attribute the variations differ in: a product has at most ${MAX_OPTIONS} options`,
      );
      return;
    }
    if (options.length === 0 && variations.length > 1) {
      for (const line of variations.slice(1)) {
        fail(
          line,
          'parent',
          `is a second variation of the product on line ${head.line} that differs from the first (line ${variations[0]?.line}) in no attribute`,
        );
      }
    }
    head.optionNames = [0, 1, 2].map((k) => options[k]);
    // Errors about an option name the attribute's column on the product's row.
    const headColumnOf = head.columnOf;
    head.columnOf = (field) => {
      const k = /^option(\d)_name$/.exec(field)?.[1];
      const index = k === undefined ? undefined : attributeOf(head, options[Number(k) - 1] ?? '')?.index;
      return headColumnOf(index === undefined ? field : `attribute${index}_name`);
    };
    for (const line of variations) {
      line.optionValues = [0, 1, 2].map((k) => {
        const name = options[k];
        return name === undefined ? undefined : attributeOf(line, name)?.value;
      });
      // What the product decides for all of them: tax status `parent`, a weight left to it.
      if (line.woo.taxFromParent) line.variant.taxable = head.variant.taxable ?? null;
      if (line.variant.weight_grams === null || line.variant.weight_grams === undefined) {
        if (typeof head.variant.weight_grams === 'number')
          line.variant.weight_grams = head.variant.weight_grams;
      }
      const columnOf = line.columnOf;
      line.columnOf = (field) => {
        const k = /^option(\d)_value$/.exec(field)?.[1];
        const index = k === undefined ? undefined : attributeOf(line, options[Number(k) - 1] ?? '')?.index;
        return columnOf(index === undefined ? field : `attribute${index}_value`);
      };
    }
  }
}
