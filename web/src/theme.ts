/**
 * Dark or light, remembered in localStorage; the first visit follows the system's preference. The choice is
 * a `data-theme` attribute on <html> that styles.css keys its colours on (no inline style: the CSP).
 */
import { readStorage, writeStorage } from "./i18n";

export type Theme = "dark" | "light";
const STORAGE_KEY = "homeagent.theme";

export function initialTheme(): Theme {
  const stored = readStorage(STORAGE_KEY);
  if (stored === "dark" || stored === "light") return stored;
  return window.matchMedia?.("(prefers-color-scheme: dark)").matches ? "dark" : "light";
}

export function applyTheme(theme: Theme, remember: boolean): void {
  document.documentElement.dataset.theme = theme;
  if (remember) writeStorage(STORAGE_KEY, theme);
}

/**
 * Reads the current theme's colours from its CSS variables, for drawings on canvas (charts, the memory
 * graph) that cannot use the stylesheet; grey for a variable that is not set.
 */
export function themeColors(): (variable: string) => string {
  const css = getComputedStyle(document.documentElement);
  return (variable) => css.getPropertyValue(variable).trim() || "#888";
}
