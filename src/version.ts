/** HomeAgent's version, reported by `/status`, `homed --version` and `waiter --version`. */
export const VERSION = "0.1.0";
