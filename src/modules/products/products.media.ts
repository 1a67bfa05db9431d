import { validationError } from '../../lib/errors.js';

/**
 * A product's `media` (from version 2027-01-20): its `images` with their alt text, in the same
 * order. The product row keeps `images` (a JSON array of URLs) and `image_alts` (a JSON object from
 * a URL to its alt text, migration 0061), so whatever writes `images` alone keeps the alt text of
 * the URLs that stay. A request gives `images` or `media`, never both.
 */

export interface MediaItem {
  url: string;
  alt: string | null;
}

/** A request's `media` item: `alt` may be left out (null). */
export interface MediaInput {
  url: string;
  alt?: string | null | undefined;
}

/** The version from which products show `media` and requests may give it. */
export const MEDIA_SINCE = '2027-01-20';

export type ImageAlts = Record<string, string>;

export function parseAlts(json: string): ImageAlts {
  return JSON.parse(json) as ImageAlts;
}

/** The product's images with their alt text, in order. */
export function presentMedia(images: readonly string[], alts: ImageAlts): MediaItem[] {
  return images.map((url) => ({ url, alt: Object.hasOwn(alts, url) ? (alts[url] as string) : null }));
}

/** `alts` kept for `images` only, in their order: the stored `image_alts`. */
export function altsJson(images: readonly string[], alts: ImageAlts): string {
  const kept: ImageAlts = {};
  for (const url of images) if (Object.hasOwn(alts, url)) kept[url] = alts[url] as string;
  return JSON.stringify(kept);
}

/**
 * The URLs and alt text a `media` list gives. The same URL twice must carry the same alt text:
 * a 400 naming the later one's `alt` otherwise.
 */
export function fromMedia(media: readonly MediaInput[]): { images: string[]; alts: ImageAlts } {
  const alts: ImageAlts = {};
  const seen = new Map<string, number>();
  media.forEach((item, index) => {
    const alt = item.alt ?? null;
    const earlier = seen.get(item.url);
    if (earlier !== undefined) {
      const before = media[earlier]?.alt ?? null;
      if (before !== alt) {
        throw validationError(
          `media[${index}].alt`,
          `differs from the alt text of the same URL at media[${earlier}]: an image has one alt text`,
        );
      }
      return;
    }
    seen.set(item.url, index);
    if (alt !== null) alts[item.url] = alt;
  });
  return { images: media.map((item) => item.url), alts };
}

/** A request's `images` or `media`: both at once are a 400 naming `media`. */
export function checkOneOf(input: { images?: unknown; media?: unknown }): void {
  if (input.images !== undefined && input.media !== undefined) {
    throw validationError(
      'media',
      'may not be given with images: give media (URLs with their alt text) or images (URLs alone)',
    );
  }
}

/** `media` in a request of a version before 2027-01-20: a 400 naming it, as any unknown field. */
export function checkMediaVersion(input: { media?: unknown }, apiVersion: string): void {
  if (input.media !== undefined && apiVersion < MEDIA_SINCE) {
    throw validationError(
      'media',
      `is not a field in version ${apiVersion}: products have media from version ${MEDIA_SINCE} (send X-Service-Version: ${MEDIA_SINCE} or upgrade); give images`,
    );
  }
}
