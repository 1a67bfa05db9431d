/** Time source, injected so tests can move it. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock tests set and advance by hand. */
export class ManualClock implements Clock {
  constructor(private current: number = Date.parse('2026-11-21T10:00:00.000Z')) {}
  now(): number {
    return this.current;
  }
  set(instant: number | string): void {
    this.current = typeof instant === 'string' ? Date.parse(instant) : instant;
  }
  advance(ms: number): void {
    this.current += ms;
  }
}

export function iso(ms: number): string;
export function iso(ms: number | null): string | null;
export function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}
