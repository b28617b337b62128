/**
 * The listening socket: parsing `plugin.webui.listen_addr`, binding it (a port in use fails the plugin's
 * start with an error naming the setting; the daemon goes on without the web UI) and a shutdown that does
 * not wait for keep-alive or streaming connections to end by themselves.
 */
import type { Server } from "node:http";
import type { ServerType } from "@hono/node-server";
import { ListenError } from "./errors.js";

export interface ListenAddress {
  host: string;
  port: number;
}

export interface ListeningServer {
  address(): ReturnType<Server["address"]>;
  /** Stops accepting, cuts every open connection and resolves when the server has closed. */
  shutdown(): Promise<void>;
}

/** "host:port" or "[v6]:port" → its parts; anything else throws ListenError naming the setting. */
export function parseListenAddress(value: string): ListenAddress {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^\s:[\]]+)):(\d{1,5})$/.exec(value.trim());
  const port = match ? Number(match[3]) : Number.NaN;
  if (!match || port > 65535) {
    throw new ListenError(
      `plugin.webui.listen_addr is "${value}", which is not host:port (e.g. 127.0.0.1:8080 or [::1]:8080); fix it with /settings set plugin.webui.listen_addr`,
    );
  }
  return { host: match[1] ?? match[2], port };
}

export function isLoopback(host: string): boolean {
  const h = host.toLowerCase();
  return h === "localhost" || h === "::1" || /^127\.\d+\.\d+\.\d+$/.test(h);
}

/** Binds `server` to `address`; rejects with a ListenError that says what to change. */
export function listen(server: ServerType, address: ListenAddress): Promise<ListeningServer> {
  const http = server as Server;
  return new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => {
      http.off("listening", onListening);
      reject(new ListenError(listenFailure(err, address), err));
    };
    const onListening = () => {
      http.off("error", onError);
      resolve({ address: () => http.address(), shutdown: () => shutdown(http) });
    };
    http.once("error", onError);
    http.once("listening", onListening);
    http.listen(address.port, address.host);
  });
}

function listenFailure(err: NodeJS.ErrnoException, { host, port }: ListenAddress): string {
  const where = `${host.includes(":") ? `[${host}]` : host}:${port}`;
  if (err.code === "EADDRINUSE") {
    return `plugin.webui.listen_addr ${where} is already in use; stop what listens there or set plugin.webui.listen_addr to a free address, then /plugins enable webui`;
  }
  if (err.code === "EACCES") {
    return `plugin.webui.listen_addr ${where} needs privileges homed does not have (ports below 1024 do); choose a port above 1024`;
  }
  return `plugin.webui.listen_addr ${where} cannot be used (${err.code ?? err.message}); set it to a local address such as 127.0.0.1:8080`;
}

function shutdown(http: Server): Promise<void> {
  return new Promise((resolve) => {
    http.close(() => resolve());
    http.closeAllConnections();
  });
}
