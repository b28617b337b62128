/** waiter as a user meets it: the real binary against a stand-in daemon, and where it looks for the socket. */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { homedir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { cliSocketPath } from "@homeagent/cli-protocol";
import { nodeArgs } from "../../test/fixtures/node-entry.js";
import { tempDir } from "../../test/fixtures/temp-dir.js";
import { nextEvent, waitFor } from "../../test/fixtures/wait.js";
import { forgetInHistoryFile } from "../daemon/input-history.js";
import { resolveSocketPath } from "./waiter-options.js";

const WAITER = nodeArgs("src/bin/waiter.ts");
const WAITER_COMMAND = [process.execPath, ...WAITER].join(" ");

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the real waiter as a subprocess with a clean environment (no inherited HOMEAGENT_* variables). */
function runWaiter(args: string[], opts: { stdin?: string; env?: Record<string, string> } = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...WAITER, ...args], {
      env: { PATH: process.env.PATH ?? "", HOME: home, ...opts.env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(opts.stdin ?? "");
  });
}

let home: string;

/** A stand-in daemon speaking the cli protocol: echoes messages after one content_delta frame. */
class FakeDaemon {
  readonly received: string[] = [];
  apiKey = "";
  /** Connections that went away while a "hold" message was unanswered. */
  abandoned = 0;
  private readonly server: Server;

  constructor(readonly path: string) {
    this.server = createServer((socket) => {
      let authed = false;
      let buffer = "";
      const send = (frame: object) => socket.write(`${JSON.stringify(frame)}\n`);
      socket.setEncoding("utf8");
      socket.on("error", () => {});
      socket.on("data", (data: string) => {
        buffer += data;
        for (let nl = buffer.indexOf("\n"); nl !== -1; nl = buffer.indexOf("\n")) {
          const line = buffer.slice(0, nl);
          buffer = buffer.slice(nl + 1);
          this.received.push(line);
          if (this.apiKey && !authed) {
            if (line === `/auth ${this.apiKey}`) {
              authed = true;
              send({ type: "response", content: "authenticated" });
            } else {
              send({ type: "error", error: "unauthorized" });
              socket.end();
              return;
            }
          } else if (line === "/tools") {
            send({ type: "tools", tools: ["shell"] });
          } else if (line === "boom") {
            send({ type: "error", error: "provider down" });
          } else if (line === "crash") {
            socket.destroy();
            return;
          } else if (line === "last words") {
            // A daemon that stops: it answers, then says why it closes, with nothing left to answer. One write,
            // so waiter reads the notice before it could send its next line (which the notice would answer).
            socket.end(
              `${JSON.stringify({ type: "response", content: "ok" })}\n${JSON.stringify({ type: "error", error: "homed is shutting down" })}\n`,
            );
          } else if (line === "hold") {
            socket.once("close", () => this.abandoned++);
          } else {
            send({ type: "tool_call", tool: "shell", status: "ok" });
            send({ type: "content_delta", content: "echo: " });
            send({ type: "response", content: `echo: ${line}` });
          }
        }
      });
    });
  }

  listen(): Promise<void> {
    return new Promise((resolve) => this.server.listen(this.path, resolve));
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

describe("waiter", () => {
  let dir: string;
  let daemon: FakeDaemon;

  before(async () => {
    dir = tempDir("hawt-");
    home = join(dir, "home");
    daemon = new FakeDaemon(cliSocketPath(dir));
    await daemon.listen();
  });

  after(async () => {
    await daemon.close();
  });

  it("exits 2 with a clear message when homed is not running", async () => {
    const data = join(dir, "nodaemon");
    const run = await runWaiter(["-c", "hello"], { env: { HOMEAGENT_DATA: data } });
    assert.equal(run.code, 2);
    assert.match(
      run.stderr,
      /homed is not running \(no socket at .*nodaemon\/cli\.sock\): start it with `npm start` or `homed`/,
    );
  });

  it("-c prints only the reply when stdout is not a terminal", async () => {
    const run = await runWaiter(["--socket", daemon.path, "-c", "hello"]);
    assert.equal(run.stderr, "");
    assert.equal(run.code, 0);
    assert.equal(run.stdout, "echo: hello\n");
  });

  it("finds the socket through HOMEAGENT_SOCKET", async () => {
    const run = await runWaiter(["--chat", "hi"], { env: { HOMEAGENT_SOCKET: daemon.path } });
    assert.equal(run.code, 0);
    assert.equal(run.stdout, "echo: hi\n");
  });

  it("answers piped stdin one reply per line, in order", async () => {
    const run = await runWaiter(["--socket", daemon.path], { stdin: "first\n\nsecond\n" });
    assert.equal(run.code, 0);
    assert.equal(run.stdout, "echo: first\necho: second\n");
  });

  it("prints an error frame on stderr and exits 1", async () => {
    const run = await runWaiter(["--socket", daemon.path, "-c", "boom"]);
    assert.equal(run.code, 1);
    assert.equal(run.stdout, "");
    assert.match(run.stderr, /provider down/);
  });

  it("prints structured slash-command answers as text, and as JSON with --json", async () => {
    const text = await runWaiter(["--socket", daemon.path, "-c", "/tools"]);
    assert.equal(text.code, 0);
    assert.equal(text.stdout, "1 tool:\n  shell\n");
    const json = await runWaiter(["--socket", daemon.path, "--json", "-c", "/tools"]);
    assert.equal(json.code, 0);
    assert.deepEqual(JSON.parse(json.stdout), { type: "tools", tools: ["shell"] });
  });

  it("reports a connection the daemon drops", async () => {
    const run = await runWaiter(["--socket", daemon.path, "-c", "crash"]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /closed unexpectedly/);
  });

  it("shows the daemon's closing notice instead of an unexpected close, and exits 1", async () => {
    const run = await runWaiter(["--socket", daemon.path], { stdin: "last words\nnext\n" });
    assert.equal(run.code, 1);
    assert.equal(run.stdout, "ok\n");
    assert.match(run.stderr, /^\n?homed: homed is shutting down\n$/);
  });

  it("on a terminal, Ctrl-C while a reply is on its way drops the connection and exits 130", async () => {
    // `script` gives waiter a real pseudo-terminal, so readline runs in raw mode as for a person.
    const command = `${WAITER_COMMAND} --socket ${daemon.path}`;
    const child = spawn("script", ["-qfec", command, "/dev/null"], {
      env: { PATH: process.env.PATH ?? "", HOME: home, TERM: "dumb" },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
    const until = (cond: () => boolean, what: string) =>
      waitFor(cond, what, { timeoutMs: 15_000 }).catch((cause) => {
        throw new Error(`${cause.message}; screen so far: ${out}`, { cause });
      });
    await until(() => out.includes("> "), "the prompt");
    child.stdin.write("hold\r");
    await until(() => daemon.received.includes("hold"), "the daemon to receive the message");
    child.stdin.write("\x03");
    const code = await nextEvent<number | null>(child, "close", 15_000).finally(() => child.kill("SIGKILL"));
    assert.equal(code, 130);
    assert.match(out, /cancelled/);
    await until(() => daemon.abandoned === 1, "the daemon to see the connection dropped");
  });

  /**
   * An interactive waiter on a terminal (through `script`) for the daemon of `data`; `send` types keys and
   * waits for the daemon to receive `expected`, `quit` leaves with /quit and returns the exit code.
   */
  async function interactive(data: string) {
    const own = new FakeDaemon(cliSocketPath(data));
    await own.listen();
    const command = WAITER_COMMAND;
    const child = spawn("script", ["-qfec", command, "/dev/null"], {
      // Not "dumb": readline ignores the arrow keys there.
      env: { PATH: process.env.PATH ?? "", HOME: home, TERM: "vt100", HOMEAGENT_DATA: data },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
    const until = (cond: () => boolean, what: string) =>
      waitFor(cond, what, { timeoutMs: 15_000 }).catch((cause) => {
        throw new Error(`${cause.message}; screen so far: ${out}`, { cause });
      });
    const stop = async () => {
      child.kill("SIGKILL");
      await own.close();
    };
    try {
      await until(() => out.includes("> "), "the prompt");
    } catch (err) {
      await stop();
      throw err;
    }
    return {
      send: async (keys: string, expected: string) => {
        child.stdin.write(keys);
        await until(() => own.received.at(-1) === expected, `the daemon to receive ${JSON.stringify(expected)}`);
      },
      quit: () => {
        child.stdin.write("/quit\r");
        return nextEvent<number | null>(child, "close", 15_000);
      },
      stop,
    };
  }

  it("keeps its history in the daemon's data dir (0600) and forgets with /memory forget --yes", async () => {
    const data = tempDir("hawt-history-");
    const waiter = await interactive(data);
    try {
      await waiter.send("hello\r", "hello");
      await waiter.send("my secret is pineapple\r", "my secret is pineapple");
      await waiter.send("/memory forget --yes PineApple\r", "/memory forget --yes PineApple");
      // The arrow key brings back the newest line left: neither the secret nor the forget line.
      await waiter.send("\x1b[A\r", "hello");
      assert.equal(await waiter.quit(), 0);
    } finally {
      await waiter.stop();
    }
    const file = join(data, "waiter_history");
    assert.equal(readFileSync(file, "utf8"), "hello\n/quit\n");
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.equal(existsSync(join(home, ".homeagent", "waiter_history")), false, "nothing under ~/.homeagent");
  });

  it("appends to its history, so what the daemon purged from the file meanwhile stays purged", async () => {
    const data = tempDir("hawt-history-");
    const file = join(data, "waiter_history");
    const waiter = await interactive(data);
    try {
      await waiter.send("hello\r", "hello");
      await waiter.send("my pin is 4711\r", "my pin is 4711");
      // A forget from the dashboard: the daemon purges the file while waiter still holds the line in memory.
      assert.equal(forgetInHistoryFile(file, ["4711"], true), 1);
      await waiter.send("later\r", "later");
      assert.equal(await waiter.quit(), 0);
    } finally {
      await waiter.stop();
    }
    assert.equal(readFileSync(file, "utf8"), "hello\nlater\n/quit\n");
  });

  it("forgets from the history with the flags in either order, and confirms nothing on --yesterday", async () => {
    const file = join(dir, "waiter_history");
    for (const flags of ["--knowledge --yes", "--yes --knowledge"]) {
      writeFileSync(file, "my secret is Mango\nkeep me\n");
      const run = await runWaiter(["-c", `/memory forget ${flags} mango`], { env: { HOMEAGENT_DATA: dir } });
      assert.equal(run.code, 0);
      assert.equal(readFileSync(file, "utf8"), "keep me\n", flags);
    }
    writeFileSync(file, "terday's notes\n");
    const run = await runWaiter(["-c", "/memory forget --yesterday's notes"], { env: { HOMEAGENT_DATA: dir } });
    assert.equal(run.code, 0);
    assert.equal(readFileSync(file, "utf8"), "terday's notes\n", "a preview drops nothing");
  });

  it("-c /memory forget --yes drops the matching lines from the history file", async () => {
    const file = join(dir, "waiter_history");
    writeFileSync(file, "my secret is Mango\nkeep me\nMANGO again\n");
    const run = await runWaiter(["-c", "/memory forget --yes mango"], { env: { HOMEAGENT_DATA: dir } });
    assert.equal(run.code, 0);
    assert.equal(readFileSync(file, "utf8"), "keep me\n");
  });

  describe("with an API key", () => {
    before(() => {
      daemon.apiKey = "k3y";
    });
    after(() => {
      daemon.apiKey = "";
    });

    it("sends /auth <key> first", async () => {
      daemon.received.length = 0;
      const run = await runWaiter(["--socket", daemon.path, "--api-key", "k3y", "-c", "hello"]);
      assert.equal(run.code, 0);
      assert.equal(run.stdout, "echo: hello\n");
      assert.deepEqual(daemon.received, ["/auth k3y", "hello"]);
    });

    it("takes the key from HOMEAGENT_API_KEY", async () => {
      const run = await runWaiter(["--socket", daemon.path, "-c", "hello"], { env: { HOMEAGENT_API_KEY: "k3y" } });
      assert.equal(run.code, 0);
      assert.equal(run.stdout, "echo: hello\n");
    });

    it("fails clearly on a wrong key", async () => {
      const run = await runWaiter(["--socket", daemon.path, "--api-key", "wrong", "-c", "hello"]);
      assert.equal(run.code, 1);
      assert.match(run.stderr, /rejected the API key \(unauthorized\)/);
    });

    it("tells the user a key is needed when none was given", async () => {
      const run = await runWaiter(["--socket", daemon.path, "-c", "hello"]);
      assert.equal(run.code, 1);
      assert.match(run.stderr, /unauthorized: homed requires an API key/);
    });
  });
});

describe("resolveSocketPath", () => {
  it("prefers the flag, then HOMEAGENT_SOCKET, then HOMEAGENT_DATA, then ~/.homeagent", () => {
    const env = { HOMEAGENT_SOCKET: "/run/s.sock", HOMEAGENT_DATA: "/data" };
    assert.equal(resolveSocketPath("/flag.sock", env), "/flag.sock");
    assert.equal(resolveSocketPath(undefined, env), "/run/s.sock");
    assert.equal(resolveSocketPath(undefined, { HOMEAGENT_DATA: "/data" }), cliSocketPath("/data"));
    assert.equal(resolveSocketPath(undefined, {}), cliSocketPath(join(homedir(), ".homeagent")));
  });
});
