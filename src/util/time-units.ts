/** Milliseconds in a second, a minute, an hour, a day: the bounds settings and loops are written in. */
export const SECOND = 1_000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;
