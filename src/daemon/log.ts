/**
 * Daemon logging: one line per event on stderr, with level filtering and every known secret masked
 * before the line is written.
 */
import type { Writable } from "node:stream";
import type { Logger } from "@homeagent/sdk";
import { maskSecret } from "../util/secret.js";

export type LogLevel = "debug" | "info" | "warn" | "error";
const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface LogSink {
  level(): LogLevel;
  secrets(): string[];
  write(line: string): void;
}

export function createLogger(scope: string, sink: LogSink): Logger {
  const emit = (level: LogLevel, msg: string) => {
    if (ORDER[level] < ORDER[sink.level()]) return;
    let line = `${new Date().toISOString()} ${level.toUpperCase().padEnd(5)} [${scope}] ${msg}`;
    for (const secret of sink.secrets()) {
      if (secret.length >= 4) line = line.split(secret).join(maskSecret(secret));
    }
    sink.write(`${line.replace(/\n/g, "\\n")}\n`);
  };
  return {
    debug: (m) => emit("debug", m),
    info: (m) => emit("info", m),
    warn: (m) => emit("warn", m),
    error: (m) => emit("error", m),
  };
}

/**
 * Lines to `stream` (stderr) until a write to it fails — a closed pipe: whoever read the log is gone — then
 * none. Unheard, that failure was an uncaught exception, which was logged to the same stream, which failed
 * again: a daemon whose terminal or parent went away spun a CPU core forever.
 */
export function streamLines(stream: Writable): (line: string) => void {
  let broken = false;
  stream.on("error", () => {
    broken = true;
  });
  return (line) => {
    if (!broken && !stream.destroyed) stream.write(line);
  };
}
