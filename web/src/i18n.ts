/**
 * The dashboard's two languages in use: the choice (remembered in localStorage; the first visit follows
 * the browser's language), the messages of it for the components, and filling a message's placeholders.
 * The tables themselves are messages.ts.
 */
import { createContext } from "preact";
import { useContext } from "preact/hooks";
import { en, type Messages, zh } from "./messages";
import type { Lang } from "./types";

export { MESSAGES, type Messages } from "./messages";
export type { Lang } from "./types";

const STORAGE_KEY = "homeagent.lang";

export function initialLang(): Lang {
  const stored = readStorage(STORAGE_KEY);
  if (stored === "en" || stored === "zh") return stored;
  return navigator.language.toLowerCase().startsWith("zh") ? "zh" : "en";
}

/** Sets the page's language; `remember` only for the user's own choice, so the default keeps following the browser. */
export function applyLang(lang: Lang, remember: boolean): void {
  if (remember) writeStorage(STORAGE_KEY, lang);
  document.documentElement.lang = lang === "zh" ? "zh-CN" : "en";
}

/** The messages of the language the page is in now, for code outside the components (a notification). */
export function pageMessages(): Messages {
  return document.documentElement.lang.startsWith("zh") ? zh : en;
}

export const I18n = createContext<Messages>(en);

export function useT(): Messages {
  return useContext(I18n);
}

/** The message of a key made at run time (a unit, a status, an error code), or undefined when there is none. */
export function optionalMessage(t: Messages, key: string): string | undefined {
  const value = (t as unknown as Record<string, unknown>)[key];
  return typeof value === "string" ? value : undefined;
}

/** A message with `{name}` placeholders filled in. */
export function fill(template: string, values: Record<string, string | number>): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole));
}

/** localStorage can throw (disabled storage, private modes); the choice is then just not remembered. */
export function readStorage(key: string): string | null {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

export function writeStorage(key: string, value: string): void {
  try {
    localStorage.setItem(key, value);
  } catch {
    // Not remembered; the page still works.
  }
}
