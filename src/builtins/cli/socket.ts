/** Listening on the cli Unix socket so that only the daemon's user can ever connect. */
import { chmodSync, lstatSync, unlinkSync } from "node:fs";
import { connect, type Server } from "node:net";
import { SdkError } from "@homeagent/sdk";

export class SocketInUseError extends SdkError {
  constructor(readonly socketPath: string) {
    super({
      code: "cli_socket_in_use",
      message: `another homed is already answering on ${socketPath}: stop it first, or start this one with a different data directory`,
    });
  }
}

export async function listenPrivate(server: Server, socketPath: string): Promise<void> {
  await removeStaleSocket(socketPath);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    // bind() runs synchronously inside listen(), so this umask makes the socket 0600 from its first
    // instant; a chmod after the fact would leave a window in which anyone could connect.
    const previous = process.umask(0o177);
    try {
      server.listen(socketPath, () => {
        server.off("error", reject);
        resolve();
      });
    } finally {
      process.umask(previous);
    }
  });
  // Belt and braces: the mode must hold even if the platform ignored the umask for sockets.
  chmodSync(socketPath, 0o600);
}

/** A socket file left by a crashed daemon is removed; one a live daemon answers on is not. */
async function removeStaleSocket(socketPath: string): Promise<void> {
  let isSocket: boolean;
  try {
    isSocket = lstatSync(socketPath).isSocket();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return;
    throw err;
  }
  if (!isSocket) {
    throw new SdkError({
      code: "cli_socket_path_taken",
      message: `${socketPath} exists and is not a socket: move it away so homed can listen there`,
    });
  }
  if (await answers(socketPath)) throw new SocketInUseError(socketPath);
  unlinkSync(socketPath);
}

function answers(socketPath: string): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const probe = connect(socketPath);
    probe.once("connect", () => {
      probe.destroy();
      resolve(true);
    });
    probe.once("error", (err: NodeJS.ErrnoException) => {
      if (err.code === "ECONNREFUSED") resolve(false);
      else reject(err);
    });
  });
}
