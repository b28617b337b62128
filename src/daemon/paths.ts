/**
 * Where the daemon keeps its files, and who may read them. The data dir comes from `--data`, then
 * HOMEAGENT_DATA, then `~/.homeagent`. It holds API keys and conversations, so it is private to the user:
 * the dir and every folder in it 0700, every file 0600, whoever created them and however they were left.
 */
import { chmodSync, closeSync, lstatSync, mkdirSync, openSync, readdirSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";

export interface DataPaths {
  root: string;
  configDb: string;
  memoryDb: string;
  /** The chat log (transcripts/database.ts). */
  transcriptsDb: string;
  adapters: string;
  plugins: string;
  /** Today's LLM usage per source (usage-file.ts). */
  usage: string;
}

const DIR_MODE = 0o700;
const FILE_MODE = 0o600;

export function resolveDataDir(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  return resolve(flag || env.HOMEAGENT_DATA || join(homedir(), ".homeagent"));
}

export interface PreparedDataDir {
  paths: DataPaths;
  /** Files and folders whose permissions were wider than private and have been corrected. */
  corrected: string[];
}

/**
 * Creates the data dir and its subfolders, makes everything already inside private, and creates the
 * databases as 0600 files before SQLite opens them (SQLite gives its -wal and -shm files the database's
 * mode, so those follow).
 */
export function prepareDataDir(root: string): PreparedDataDir {
  const paths: DataPaths = {
    root,
    configDb: join(root, "config.db"),
    memoryDb: join(root, "memory.db"),
    transcriptsDb: join(root, "transcripts.db"),
    adapters: join(root, "adapters"),
    plugins: join(root, "plugins"),
    usage: join(root, "usage.json"),
  };
  mkdirSync(root, { recursive: true, mode: DIR_MODE });
  for (const dir of [paths.adapters, paths.plugins, join(root, "plugin_data"), join(root, "memory")]) {
    mkdirSync(dir, { recursive: true, mode: DIR_MODE });
  }
  for (const db of [paths.configDb, paths.memoryDb, paths.transcriptsDb]) closeSync(openSync(db, "a", FILE_MODE));
  return { paths, corrected: makePrivate(root) };
}

/**
 * chmods `dir` and everything under it to owner-only; returns what it changed. Symlinks are not followed. A
 * file the owner may execute keeps that bit (0700): a plugin's `plugin.bin` must stay runnable.
 */
export function makePrivate(dir: string): string[] {
  const corrected: string[] = [];
  const visit = (path: string) => {
    const st = lstatSync(path);
    if (st.isSymbolicLink() || st.isSocket()) return;
    const want = st.isDirectory() ? DIR_MODE : FILE_MODE | (st.mode & 0o100);
    if ((st.mode & 0o777) !== want) {
      chmodSync(path, want);
      corrected.push(path);
    }
    if (st.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
  };
  visit(dir);
  return corrected;
}
