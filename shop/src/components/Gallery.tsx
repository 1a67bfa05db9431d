import { useState } from 'react';
import type { Product } from '../types.js';

export type Picture = Product['media'][number];

/**
 * A product's pictures: the one chosen, large, and a button per picture to choose it. The large
 * one says what it shows with its alt text, or else with the product's name.
 */
export function Gallery({ images, name }: { images: Picture[]; name: string }) {
  const [shown, setShown] = useState(0);
  const current = images[shown] ?? images[0];
  if (!current) {
    return <div className="gallery-main no-image" role="img" aria-label={`${name}: no picture`} />;
  }
  return (
    <div className="gallery">
      <img
        className="gallery-main"
        src={current.url}
        alt={current.alt ?? (images.length > 1 ? `${name}, picture ${shown + 1} of ${images.length}` : name)}
        width={640}
        height={640}
      />
      {images.length > 1 ? (
        <ul className="thumbs" aria-label="Pictures">
          {images.map((image, index) => (
            <li key={image.url}>
              <button
                type="button"
                className="thumb"
                aria-pressed={index === shown}
                aria-label={`Show picture ${index + 1} of ${images.length}`}
                onClick={() => setShown(index)}
              >
                <img src={image.url} alt="" width={72} height={72} loading="lazy" />
              </button>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
