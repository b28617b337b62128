/**
 * Where the daemon keeps its files. The data dir comes from `--data`, then HOMEAGENT_DATA, then
 * `~/.homeagent`.
 */
import { mkdirSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";

export interface DataPaths {
  root: string;
  configDb: string;
  memoryDb: string;
  socket: string;
  adapters: string;
  plugins: string;
}

export function resolveDataDir(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  return resolve(flag || env.HOMEAGENT_DATA || join(homedir(), ".homeagent"));
}

/** Creates the data dir (private to the user: it holds API keys and conversations) and its subfolders. */
export function prepareDataDir(root: string): DataPaths {
  const paths: DataPaths = {
    root,
    configDb: join(root, "config.db"),
    memoryDb: join(root, "memory.db"),
    socket: join(root, "cli.sock"),
    adapters: join(root, "adapters"),
    plugins: join(root, "plugins"),
  };
  mkdirSync(root, { recursive: true, mode: 0o700 });
  for (const dir of [paths.adapters, paths.plugins, join(root, "plugin_data"), join(root, "memory")]) {
    mkdirSync(dir, { recursive: true });
  }
  return paths;
}
