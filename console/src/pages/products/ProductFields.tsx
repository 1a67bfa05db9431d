import { useId, useState } from 'react';
import { Field, SelectField } from '../../components/Form.js';
import type { ProductDraft } from './draft.js';

/** The product's own fields: name, handle, status, category, tags and description. */
export function DetailsFields({
  draft,
  isNew,
  errors,
  onChange,
  onWriteDescription,
}: {
  draft: ProductDraft;
  isNew: boolean;
  errors: Record<string, string>;
  onChange: (change: Partial<ProductDraft>) => void;
  onWriteDescription: () => void;
}) {
  const id = useId();
  return (
    <section className="card" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Details</h2>
      <Field
        label="Name"
        required
        maxLength={200}
        value={draft.name}
        error={errors.name}
        onChange={(e) => onChange({ name: e.target.value })}
      />
      <div className="form-row">
        <Field
          label="Handle"
          maxLength={255}
          value={draft.handle}
          error={errors.handle}
          placeholder={isNew ? 'Made from the name' : undefined}
          hint="The name in your shop’s web addresses: lowercase letters, digits and hyphens."
          onChange={(e) => onChange({ handle: e.target.value })}
        />
        <SelectField
          label="Status"
          value={draft.status}
          error={errors.status}
          hint="Only active products are in the shop."
          onChange={(e) => onChange({ status: e.target.value as ProductDraft['status'] })}
        >
          <option value="active">Active</option>
          <option value="draft">Draft</option>
          <option value="archived">Archived</option>
        </SelectField>
      </div>
      <div className="form-row">
        <Field
          label="Category"
          maxLength={100}
          value={draft.category}
          error={errors.category}
          placeholder="e.g. shoes"
          onChange={(e) => onChange({ category: e.target.value })}
        />
        <Field
          label="Tags"
          value={draft.tags}
          error={errors.tags}
          placeholder="running, trail"
          hint="Separated by commas."
          onChange={(e) => onChange({ tags: e.target.value })}
        />
      </div>
      <div className="field">
        <div className="field-label-row">
          <label htmlFor={`${id}-description`}>Description</label>
          <button type="button" className="button button-small" onClick={onWriteDescription}>
            Write with AI
          </button>
        </div>
        <textarea
          id={`${id}-description`}
          rows={6}
          value={draft.description}
          aria-invalid={errors.description ? true : undefined}
          onChange={(e) => onChange({ description: e.target.value })}
        />
        {errors.description ? <p className="field-error">{errors.description}</p> : null}
      </div>
    </section>
  );
}

/** An image's preview: the picture, or a placeholder when it does not load. */
function Thumbnail({ url, alt }: { url: string; alt: string }) {
  const [failed, setFailed] = useState(false);
  if (failed) {
    return (
      <span className="image-thumb image-thumb-missing" role="img" aria-label="Image did not load">
        No preview
      </span>
    );
  }
  return (
    <img
      className="image-thumb"
      src={url}
      alt={alt}
      width={64}
      height={64}
      loading="lazy"
      referrerPolicy="no-referrer"
      onError={() => setFailed(true)}
    />
  );
}

/**
 * The product's images, by URL (https), in order, each previewed and with its alt text (what it
 * shows, for screen readers and the shop's `<img alt>`); saved as the API's `media`.
 */
export function ImagesField({
  images,
  error,
  onChange,
}: {
  images: ProductDraft['images'];
  error: string | undefined;
  onChange: (images: ProductDraft['images']) => void;
}) {
  const id = useId();
  const [url, setUrl] = useState('');
  const [problem, setProblem] = useState<string>();

  function add() {
    const value = url.trim();
    if (!/^https:\/\/\S+$/i.test(value)) {
      setProblem('Image URL must start with https:// and have no spaces.');
      return;
    }
    if (images.some((image) => image.url === value)) {
      setProblem('That image is listed already.');
      return;
    }
    onChange([...images, { url: value, alt: '' }]);
    setUrl('');
    setProblem(undefined);
  }

  return (
    <section className="card" aria-labelledby={`${id}-title`}>
      <div className="card-header">
        <h2 id={`${id}-title`}>Images</h2>
        <span className="hint">The first is the main image</span>
      </div>
      {images.length === 0 ? (
        <p className="muted">No images yet.</p>
      ) : (
        <ol className="image-list">
          {images.map((image, index) => (
            <li key={image.url} className="image-row">
              <Thumbnail url={image.url} alt={image.alt} />
              <div className="image-fields">
                <a
                  href={image.url}
                  target="_blank"
                  rel="noreferrer noopener"
                  className="mono break-anywhere image-url"
                >
                  {image.url}
                </a>
                <Field
                  label={`Alt text of image ${index + 1}`}
                  maxLength={512}
                  value={image.alt}
                  placeholder="What the image shows"
                  onChange={(e) =>
                    onChange(
                      images.map((other, i) => (i === index ? { ...other, alt: e.target.value } : other)),
                    )
                  }
                />
              </div>
              <button
                type="button"
                className="button button-small button-danger-ghost"
                aria-label={`Remove image ${index + 1}`}
                onClick={() => onChange(images.filter((_, i) => i !== index))}
              >
                Remove
              </button>
            </li>
          ))}
        </ol>
      )}
      {error ? (
        <p className="field-error" role="alert">
          {error}
        </p>
      ) : null}
      <div className="image-add">
        <Field
          label="Image URL"
          type="url"
          placeholder="https://cdn.example.com/products/tee.jpg"
          value={url}
          error={problem}
          onChange={(e) => setUrl(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter') {
              e.preventDefault();
              add();
            }
          }}
        />
        <button type="button" className="button" onClick={add}>
          Add image
        </button>
      </div>
    </section>
  );
}
