/**
 * Waiting for work that cannot be cancelled (a plugin's tool, a call into a Lua worker) only as long as the
 * caller wants: the caller's abort settles the wait at once, while the work runs out on its own. Nothing
 * starts when the signal has already fired.
 */
export function untilAborted<T>(
  run: () => Promise<T>,
  signal: AbortSignal | undefined,
  abortError: (reason: unknown) => Error,
): Promise<T> {
  if (!signal) return run();
  if (signal.aborted) return Promise.reject(abortError(signal.reason));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortError(signal.reason));
    signal.addEventListener("abort", onAbort, { once: true });
    run()
      .then(resolve, reject)
      .finally(() => signal.removeEventListener("abort", onAbort));
  });
}
