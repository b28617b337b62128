/**
 * The dashboard's message tables, one file per language: every visible string of the UI is one of these
 * (test/browser/i18n-walk.test.ts holds the page to that), and a message missing from a language is a type
 * error. Kept apart from i18n.ts (which needs the browser and Preact) so Node-side tests can read them too.
 */
import { en } from "./messages-en.js";
import { zh } from "./messages-zh.js";
import type { Lang } from "./types.js";

export type Messages = typeof en;
export { en, zh };

export const MESSAGES: Record<Lang, Messages> = { en, zh };
