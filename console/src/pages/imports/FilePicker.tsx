import { type DragEvent, useId, useRef, useState } from 'react';
import { fileSize } from './describe.js';

/** The file field: a file input that is also a drop target. */
export function FilePicker({
  file,
  error,
  onChange,
}: {
  file: File | undefined;
  error: string | undefined;
  onChange: (file: File | undefined) => void;
}) {
  const inputId = useId();
  const noteId = useId();
  const input = useRef<HTMLInputElement>(null);
  const [dragging, setDragging] = useState(false);

  function dropped(event: DragEvent<HTMLDivElement>) {
    event.preventDefault();
    setDragging(false);
    const files = event.dataTransfer.files;
    const first = files[0];
    if (!first) return;
    // The input shows the dropped file too, as if it had been chosen there.
    if (input.current) input.current.files = files;
    onChange(first);
  }

  return (
    <div
      className={`field dropzone${dragging ? ' dropzone-active' : ''}`}

      onDragEnter={(event) => {
        event.preventDefault();
        setDragging(true);
      }}
      onDragOver={(event) => {
        event.preventDefault();
        event.dataTransfer.dropEffect = 'copy';
      }}
      onDragLeave={(event) => {
        if (!event.currentTarget.contains(event.relatedTarget as Node | null)) setDragging(false);
      }}
      onDrop={dropped}
    >
      <label htmlFor={inputId}>File</label>
      <input
        ref={input}
        id={inputId}
        type="file"
        accept=".csv,.jsonl,.ndjson,text/csv,application/x-ndjson"
        aria-describedby={noteId}
        aria-invalid={error ? true : undefined}
        onChange={(event) => onChange(event.target.files?.[0])}
      />
      {error ? (
        <p id={noteId} className="field-error">
          {error}
        </p>
      ) : (
        <p id={noteId} className="hint">
          {file
            ? `${file.name} · ${fileSize(file.size)}`
            : 'CSV or JSON Lines (.jsonl, .ndjson), up to 50 MiB: choose one, or drop it here.'}
        </p>
      )}
    </div>
  );
}
