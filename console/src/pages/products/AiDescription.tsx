import { useState } from 'react';
import { useGenerateDescription } from '../../api/store-mutations.js';
import { Dialog } from '../../components/Dialog.js';
import { Field, FormError, SelectField } from '../../components/Form.js';
import { plural } from '../../format.js';
import type { JsonBody } from '../../types.js';

type Request = JsonBody<'generateProductDescription'>;
type Tone = NonNullable<Request['tone']>;
type Length = NonNullable<Request['length']>;

const TONES: Tone[] = ['professional', 'friendly', 'luxury', 'playful', 'technical'];
const LENGTHS: { value: Length; label: string }[] = [
  { value: 'short', label: 'Short (30-60 words)' },
  { value: 'medium', label: 'Medium (80-130 words)' },
  { value: 'long', label: 'Long (180-260 words, paragraphs)' },
];

/**
 * Writes a product description with the AI endpoint (`POST /v1/ai/generate-description`): from
 * the stored product (its name, category, attributes and the options some variant in stock has),
 * or, for a product not saved yet, from what the form holds. "Use this text" puts it in the
 * description field; it is saved with the rest of the form.
 */
export function AiDescriptionDialog({
  subject,
  onUse,
  onClose,
}: {
  /** What the text is written from. */
  subject: Pick<Request, 'product_id' | 'product'>;
  onUse: (text: string) => void;
  onClose: () => void;
}) {
  const generate = useGenerateDescription();
  const [tone, setTone] = useState<Tone>('professional');
  const [length, setLength] = useState<Length>('medium');
  const [keywords, setKeywords] = useState('');
  const [attempt, setAttempt] = useState(0);
  const text = generate.data?.description;

  function write(variant: number) {
    setAttempt(variant);
    const words = keywords
      .split(',')
      .map((word) => word.trim())
      .filter((word) => word !== '');
    generate.mutate({ ...subject, tone, length, variant, ...(words.length > 0 ? { keywords: words } : {}) });
  }

  return (
    <Dialog
      title="Write a description with AI"
      onClose={onClose}
      size="wide"
      description={
        subject.product_id
          ? 'Written from the product as saved: its name, category, attributes and the options in stock.'
          : 'Written from the name, category and options in the form.'
      }
    >
      <form
        onSubmit={(event) => {
          event.preventDefault();
          write(0);
        }}
      >
        <div className="form-row">
          <SelectField label="Tone" value={tone} onChange={(e) => setTone(e.target.value as Tone)}>
            {TONES.map((value) => (
              <option key={value} value={value}>
                {value.charAt(0).toUpperCase() + value.slice(1)}
              </option>
            ))}
          </SelectField>
          <SelectField label="Length" value={length} onChange={(e) => setLength(e.target.value as Length)}>
            {LENGTHS.map(({ value, label }) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </SelectField>
        </div>
        <Field
          label="Keywords"
          hint="Optional, separated by commas: each appears word for word."
          value={keywords}
          onChange={(e) => setKeywords(e.target.value)}
        />
        <FormError error={generate.error} />
        {text !== undefined ? (
          <section className="ai-result" aria-label="Generated description">
            {text.split(/\n\s*\n/).map((paragraph, i) => (
              <p key={i}>{paragraph}</p>
            ))}
            <p className="hint">
              {plural(generate.data?.word_count ?? 0, 'word')} · {generate.data?.provider} (
              {generate.data?.model})
            </p>
          </section>
        ) : null}
        <div className="dialog-actions">
          <button type="button" className="button" onClick={onClose}>
            Cancel
          </button>
          {text !== undefined ? (
            <>
              <button
                type="button"
                className="button"
                disabled={generate.isPending}
                onClick={() => write(attempt + 1)}
              >
                {generate.isPending ? 'Writing…' : 'Write another'}
              </button>
              <button
                type="button"
                className="button button-primary"
                disabled={generate.isPending}
                onClick={() => {
                  onUse(text);
                  onClose();
                }}
              >
                Use this text
              </button>
            </>
          ) : (
            <button type="submit" className="button button-primary" disabled={generate.isPending}>
              {generate.isPending ? 'Writing…' : 'Write description'}
            </button>
          )}
        </div>
      </form>
    </Dialog>
  );
}
