/**
 * The admin credentials: their hashes in a small `auth_credentials` table of config.db, and the generated
 * plain values in `<data>/credentials` (0600) for the user to read once. A table of its own rather than
 * hidden config keys: config keys can be written through `/settings` and the settings API, are cached by the
 * config store (a reset by `homed --reset-credentials` from another process would go unseen) and would be
 * listed as problems; this table is read by nobody else and re-read on every check.
 */

import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { writePrivateFile } from "../util/private-file.js";
import { hashApiKey, hashPassword, passwordMatches, randomApiKey, randomPassword } from "./secret-hash.js";

export const ADMIN_USER = "admin";
export const CREDENTIALS_FILE = "credentials";

const PASSWORD_VAR = "HOMEAGENT_ADMIN_PASSWORD";
const API_KEY_VAR = "HOMEAGENT_API_KEY";

export interface StoredCredentials {
  user: string;
  passwordHash: string;
  apiKeyHash: string;
  /** Grows with every change, so sessions opened under older credentials can be told apart. */
  version: number;
}

export interface EnsureResult {
  /** The credentials file; the only thing that may be logged. */
  file: string;
  /** True when new credentials were made (first start or reset) and the file written. */
  created: boolean;
}

export class CredentialTable {
  private readonly getStmt: Database.Statement;

  private constructor(private readonly db: Database.Database) {
    this.getStmt = db.prepare("SELECT user, password_hash, api_key_hash, version FROM auth_credentials WHERE user = ?");
  }

  /** Opens its own connection to config.db (WAL: the config store's connection and this one coexist). */
  static open(configDb: string): CredentialTable {
    const db = new Database(configDb);
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = FULL");
    db.exec(`CREATE TABLE IF NOT EXISTS auth_credentials (
      user TEXT PRIMARY KEY, password_hash TEXT NOT NULL, api_key_hash TEXT NOT NULL, version INTEGER NOT NULL
    )`);
    return new CredentialTable(db);
  }

  get(): StoredCredentials | undefined {
    const row = this.getStmt.get(ADMIN_USER) as
      | { user: string; password_hash: string; api_key_hash: string; version: number }
      | undefined;
    return (
      row && { user: row.user, passwordHash: row.password_hash, apiKeyHash: row.api_key_hash, version: row.version }
    );
  }

  put(passwordHash: string, apiKeyHash: string): void {
    this.db
      .prepare(
        `INSERT INTO auth_credentials (user, password_hash, api_key_hash, version) VALUES (?, ?, ?, 1)
         ON CONFLICT(user) DO UPDATE SET password_hash = excluded.password_hash,
           api_key_hash = excluded.api_key_hash, version = version + 1`,
      )
      .run(ADMIN_USER, passwordHash, apiKeyHash);
  }

  close(): void {
    this.db.close();
  }
}

/**
 * At start: makes credentials when there are none. HOMEAGENT_ADMIN_PASSWORD / HOMEAGENT_API_KEY win over
 * stored ones, as every HOMEAGENT_* variable does, so setting one later takes effect at the next start.
 */
/** Where the generated password and API key are written for the user to read. */
export function credentialsFile(dataDir: string): string {
  return join(dataDir, CREDENTIALS_FILE);
}

export async function ensureCredentials(
  table: CredentialTable,
  dataDir: string,
  env: Record<string, string | undefined>,
): Promise<EnsureResult> {
  const file = credentialsFile(dataDir);
  const stored = table.get();
  if (!stored) return { file: await makeCredentials(table, dataDir, env), created: true };
  const password = env[PASSWORD_VAR];
  const key = env[API_KEY_VAR];
  const passwordStale = !!password && !(await passwordMatches(password, stored.passwordHash));
  const keyStale = !!key && hashApiKey(key) !== stored.apiKeyHash;
  if (passwordStale || keyStale) {
    table.put(
      passwordStale ? await hashPassword(password) : stored.passwordHash,
      keyStale ? hashApiKey(key) : stored.apiKeyHash,
    );
    if (existsSync(file)) {
      let text = readFileSync(file, "utf8");
      if (passwordStale) text = replaceEntry(text, "password", fromVariable(PASSWORD_VAR));
      if (keyStale) text = replaceEntry(text, "api_key", fromVariable(API_KEY_VAR));
      writePrivateFile(file, text);
    }
  }
  return { file, created: false };
}

/** New credentials (the environment's where set, else random), stored and written; returns the file. */
export async function makeCredentials(
  table: CredentialTable,
  dataDir: string,
  env: Record<string, string | undefined>,
): Promise<string> {
  const file = credentialsFile(dataDir);
  const password = env[PASSWORD_VAR] || randomPassword();
  const key = env[API_KEY_VAR] || randomApiKey();
  table.put(await hashPassword(password), hashApiKey(key));
  const lines = [
    `# HomeAgent credentials, written by homed at ${new Date().toISOString()}.`,
    "# config.db keeps only hashes: this file is the only copy. Keep it private, or note the values and delete it.",
    "# Forgot them? Stop homed (or not) and run: homed --reset-credentials",
    `user: ${ADMIN_USER}`,
    `password: ${env[PASSWORD_VAR] ? fromVariable(PASSWORD_VAR) : password}`,
    `api_key: ${env[API_KEY_VAR] ? fromVariable(API_KEY_VAR) : key}`,
  ];
  writePrivateFile(file, `${lines.join("\n")}\n`);
  return file;
}

/** A value the user set is not copied to disk: the file names where it comes from. */
function fromVariable(variable: string): string {
  return `(the value of ${variable})`;
}

function replaceEntry(text: string, name: string, value: string): string {
  return text
    .split("\n")
    .map((line) => (line.startsWith(`${name}:`) ? `${name}: ${value}` : line))
    .join("\n");
}
