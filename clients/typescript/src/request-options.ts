/** Per-call options of a namespace method (the last argument of each). */
export interface RequestOptions {
  /** Extra request headers. */
  headers?: Record<string, string>;
  /**
   * The `Idempotency-Key` of a POST. Without it the client makes one per call, and every retry of
   * the call sends the same one.
   */
  idempotencyKey?: string;
  /** The media type of a body that is a file (`imports.create`): its first declared type by default. */
  contentType?: string;
  /** Cancels the call, retries included. */
  signal?: AbortSignal;
}
