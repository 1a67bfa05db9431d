import { useId } from 'react';

/** Five stars filled to `rating` (0 to 5), for the eye; the number is given in text beside it. */
export function Stars({ rating }: { rating: number }) {
  const width = `${Math.max(0, Math.min(5, rating)) * 20}%`;
  return (
    <span className="stars" aria-hidden="true">
      <span className="stars-empty">★★★★★</span>
      <span className="stars-full" style={{ width }}>
        ★★★★★
      </span>
    </span>
  );
}

/** Rate from 1 to 5: a group of real buttons, each saying what it does. */
export function RateInput({
  name,
  value,
  onRate,
  disabled,
}: {
  name: string;
  value: number | undefined;
  onRate: (stars: number) => void;
  disabled?: boolean;
}) {
  const id = useId();
  return (
    <div className="rate" role="group" aria-labelledby={id}>
      <span id={id} className="rate-label">
        {value ? `Your rating: ${value}` : 'Rate'}
      </span>
      {[1, 2, 3, 4, 5].map((stars) => (
        <button
          key={stars}
          type="button"
          className={`rate-star${value !== undefined && stars <= value ? ' rate-star-on' : ''}`}
          aria-label={`Rate ${name} ${stars} star${stars === 1 ? '' : 's'}`}
          aria-pressed={value === stars}
          disabled={disabled}
          onClick={() => onRate(stars)}
        >
          <span aria-hidden="true">{value !== undefined && stars <= value ? '★' : '☆'}</span>
        </button>
      ))}
    </div>
  );
}
