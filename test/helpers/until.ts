// Waiting on a condition instead of a fixed time: a test that sleeps "long enough" is slow on an
// idle machine and flaky on a busy one. The bound only turns a hang into a named failure.

/** Resolves once `ok()` holds (checked every 5 ms); rejects naming `what` after `timeoutMs`. */
export async function until(ok: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`still waiting after ${timeoutMs} ms for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** A promise with its resolve outside, for a fixture that must wait until the test lets it go. */
export function gate(): { promise: Promise<void>; open(): void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}
