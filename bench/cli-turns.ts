/**
 * What the cli benchmarks (soak, idle) share: a client of homed's cli socket that sends one line and waits
 * for that line's final frame, and the daemon's memory as the kernel counts it (/proc/<pid>/status).
 */
import { readFileSync } from "node:fs";
import { createConnection, type Socket } from "node:net";
import { isFinalFrame, type ServerFrame } from "@homeagent/cli-protocol";

/** One cli connection: a line out, frames in until the final frame of that line. */
export class Client {
  private buffer = "";
  private waiting: ((frame: Record<string, unknown>) => void) | null = null;

  private constructor(private readonly socket: Socket) {
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      this.buffer += chunk;
      for (let nl = this.buffer.indexOf("\n"); nl >= 0; nl = this.buffer.indexOf("\n")) {
        const frame = JSON.parse(this.buffer.slice(0, nl)) as Record<string, unknown>;
        this.buffer = this.buffer.slice(nl + 1);
        if (isFinalFrame(frame as unknown as ServerFrame)) this.waiting?.(frame);
      }
    });
  }

  static connect(path: string): Promise<Client> {
    return new Promise((resolve, reject) => {
      const socket = createConnection(path, () => resolve(new Client(socket)));
      socket.once("error", reject);
    });
  }

  ask(line: string): Promise<Record<string, unknown>> {
    return new Promise((resolve) => {
      this.waiting = resolve;
      this.socket.write(`${line}\n`);
    });
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.socket.once("close", () => resolve());
      this.socket.end();
    });
  }
}

/** A size field of /proc/<pid>/status (VmRSS, VmHWM …) in MB, one decimal. */
export function statusMb(pid: number, field = "VmRSS"): number {
  const kb = new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
  return Math.round((Number(kb) / 1024) * 10) / 10;
}
