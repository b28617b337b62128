/**
 * Bounding a promise we cannot cancel (a plugin's start(), say): the caller gets an answer in time and moves
 * on, while the late outcome is still observed so it never becomes an unhandled rejection.
 */

/** Node clamps a longer setTimeout delay to 1 ms: 2^31 − 1 ms (about 24.8 days) is the longest real one. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Settles like `work`, or rejects with `timeoutError()` if `work` has not settled after `ms`. `onLate` sees
 * the outcome of work that settled after the deadline (value, or the error).
 */
export function withinTime<T>(
  work: Promise<T>,
  ms: number,
  timeoutError: () => Error,
  onLate?: (outcome: { value?: T; error?: unknown }) => void,
): Promise<T> {
  let timedOut = false;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      timedOut = true;
      reject(timeoutError());
    }, ms);
  });
  const observed = work.then(
    (value) => {
      if (timedOut) onLate?.({ value });
      return value;
    },
    (error: unknown) => {
      if (timedOut) onLate?.({ error });
      throw error;
    },
  );
  return Promise.race([observed, deadline]).finally(() => clearTimeout(timer));
}
