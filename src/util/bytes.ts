/**
 * Byte sizes as a person reads them in a limit's error message ("4 MiB", "64 KiB"), so the figure matches
 * what the setting or the documentation says instead of a raw count.
 */
const KiB = 1024;
const MiB = 1024 * KiB;

export function formatBytes(n: number): string {
  if (n >= MiB && n % MiB === 0) return `${n / MiB} MiB`;
  if (n >= KiB && n % KiB === 0) return `${n / KiB} KiB`;
  return `${n} bytes`;
}
