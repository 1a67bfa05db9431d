/** Text as written, in a scrollable box; never HTML: React sets it as the text of the <pre>. */
export function Preformatted({ label, text }: { label: string; text: string }) {
  return (
    // Focusable, so a box wider or longer than the text scrolls from the keyboard too.
    <pre className="code-block" aria-label={label} tabIndex={0}>
      <code>{text}</code>
    </pre>
  );
}
