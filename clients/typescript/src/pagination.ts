import type { ListPage } from './types.js';

/**
 * A list call. `await` it for one page (`{data, has_more, next_cursor, ...}`); iterate it with
 * `for await` for every item of every page, each next page asked with the previous page's
 * `next_cursor` (the same filters, no offset); `pages()` iterates pages. Nothing is requested until
 * one of these is used, and the first page is requested once.
 */
export class PagedList<Page extends ListPage<unknown>>
  implements AsyncIterable<Page['data'][number]>, PromiseLike<Page>
{
  #first: Promise<Page> | undefined;
  readonly #fetchPage: (cursor: string | undefined) => Promise<Page>;

  constructor(fetchPage: (cursor: string | undefined) => Promise<Page>) {
    this.#fetchPage = fetchPage;
  }

  /** The first page (the one the call's own query asks for). */
  firstPage(): Promise<Page> {
    this.#first ??= this.#fetchPage(undefined);
    return this.#first;
  }

  then<A = Page, B = never>(
    onFulfilled?: ((page: Page) => A | PromiseLike<A>) | null,
    onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.firstPage().then(onFulfilled, onRejected);
  }

  /** Every page, from the first, following `next_cursor`. */
  async *pages(): AsyncGenerator<Page, void, undefined> {
    let page = await this.firstPage();
    yield page;
    while (page.has_more && page.next_cursor !== null) {
      page = await this.#fetchPage(page.next_cursor);
      yield page;
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Page['data'][number], void, undefined> {
    for await (const page of this.pages()) {
      const items: readonly Page['data'][number][] = page.data;
      yield* items;
    }
  }

  /** Every item of every page, in one array. */
  async toArray(): Promise<Page['data'][number][]> {
    const items: Page['data'][number][] = [];
    for await (const item of this) items.push(item);
    return items;
  }
}
