/**
 * HomeAgent's version, reported by `/status`, `homed --version` and `waiter --version`. Read from the
 * root package.json (one level up from both src/ and dist/), so a release changes it in one place.
 */
import { readFileSync } from "node:fs";

export const VERSION: string = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")).version;
