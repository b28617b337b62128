/**
 * Built-in `cmd` plugin: `cmd_run` runs one program without a shell, in the workspace, under the policy of
 * `plugin.cmd.mode` — a command matching an argument pattern of `plugin.cmd.allow` runs at once; in `ask`
 * mode any other runs only after the user approves that exact command line (sdk.ask; with nobody to ask it
 * is refused); `allowlist` runs only the patterns; `any` runs all; `off` none. A command still running after
 * `plugin.cmd.background_after` answers "still running" and its result is sent to the channel (or its
 * inbox) when it ends; stopping the plugin (or the daemon) kills every command still running. `cmd_history`
 * lists the last 100.
 */
import { definePlugin, type Plugin, type PluginSDK, parseDuration, SdkError, type ToolContext } from "@homeagent/sdk";
import { CommandHistory } from "./history.js";
import { LiveRuns } from "./live-runs.js";
import { checkMode, decide, namesDataDir, parsePatterns } from "./policy.js";
import { checkProgram, findProgram } from "./program.js";
import { type RunResult, runProgram } from "./run.js";
import { Scratch } from "./scratch.js";
import { CMD_SETTINGS } from "./settings.js";
import { splitCommand } from "./split.js";
import { confineWorkdir, workspaceOf } from "./workdir.js";

const DEFAULT_TIMEOUT_S = 30;
const MAX_TIMEOUT_S = 3_600;
const MAX_COMMAND_CHARS = 8_000;
/** Commands running at once; one more is refused (a model looping on cmd_run). */
const MAX_RUNNING = 8;

export function createCmdPlugin(): Plugin {
  let running = 0;
  // Every command still running is killed when the plugin stops: none outlives the daemon's own stop.
  const runs = new LiveRuns();
  let stopped = false;

  const start = (sdk: PluginSDK): void => {
    sdk.settings.define(CMD_SETTINGS);
    const history = new CommandHistory();
    const root = workspaceOf(sdk.daemonDataDir);
    const scratch = new Scratch(sdk.dataDir);
    const dataDir = sdk.daemonDataDir;
    void scratch.sweep();

    const deliverLater = async (channel: string, text: string): Promise<void> => {
      if (stopped) return;
      try {
        await sdk.send(channel, text, { kind: "result", fallback: true });
      } catch (err) {
        sdk.log.warn(`cmd: a background result could not go to "${channel}" nor elsewhere: ${(err as Error).message}`);
      }
    };

    const run = async (args: Record<string, unknown>, ctx: ToolContext): Promise<unknown> => {
      const command = String(args.command ?? "").trim();
      if (!command) return refusal("cmd_run needs a command");
      if (command.length > MAX_COMMAND_CHARS) return refusal(`a command is at most ${MAX_COMMAND_CHARS} characters`);
      const timeoutS = timeoutOf(args.timeout);
      const argv = splitCommand(command);
      const mode = checkMode(sdk.settings.get("mode"));
      // Off: refused before anything on the machine is looked at.
      if (mode === "off")
        throw new SdkError({ code: "command_refused", message: `not run: ${decide(mode, [], argv, false).why}` });
      // With a workdir it runs in the workspace, which the model can write; without, in a fresh empty folder.
      const inWorkspace = typeof args.workdir === "string" && args.workdir !== "";
      const workdir = inWorkspace ? confineWorkdir(root, args.workdir as string) : scratch.root;
      const program = findProgram(argv[0], workdir);
      const verdict = decide(mode, parsePatterns(sdk.settings.get("allow") ?? ""), argv, program.inPath, inWorkspace);
      const base = { command, workdir: inWorkspace ? workdir : "(a new empty folder)", startedAt: Date.now() };
      let allowedBy = verdict.run ? verdict.why : "";
      if (!verdict.run) {
        if (!verdict.ask) {
          history.add({ ...base, status: "refused" });
          throw new SdkError({ code: "command_refused", message: `not run: ${verdict.why}` });
        }
        // "always" would run it again unasked: only for a system program, away from the workspace, that
        // names nothing in HomeAgent's data folder (the workspace's files are the model's to rewrite).
        const lasting =
          !inWorkspace && program.inPath && !argv.slice(1).some((arg) => namesDataDir(arg, dataDir, scratch.root));
        const outcome = await sdk.ask({
          requestId: ctx.requestId,
          question: `run ${command}   (${inWorkspace ? `in ${workdir}` : "in a new empty folder"})`,
          // Exactly what runs: the program's file, its arguments and where.
          subject: JSON.stringify({ file: program.file, args: argv.slice(1), workdir: inWorkspace ? workdir : "" }),
          options: lasting ? ["once", "always", "deny"] : ["once", "deny"],
        });
        if (!outcome.approved) {
          history.add({ ...base, status: outcome.reason === "denied" ? "denied" : "refused" });
          throw new SdkError({
            code: "command_refused",
            message:
              outcome.reason === "no_client"
                ? `not run: ${verdict.why}, and nobody is connected who could approve it (waiter or the dashboard)`
                : `not run: the user's approval was ${outcome.reason === "denied" ? "refused" : `not given (${outcome.reason})`}`,
          });
        }
        allowedBy = `approved (${outcome.how}) by ${outcome.by}`;
      }
      if (!program.inPath) checkProgram(program, argv[0]);
      if (running >= MAX_RUNNING) {
        throw new SdkError({
          code: "queue_full",
          message: `${MAX_RUNNING} commands are running already; wait for one`,
        });
      }
      const entry = history.add({ ...base, status: "running", allowedBy });
      running++;
      const cwd = inWorkspace ? workdir : scratch.make();
      // The command belongs to the turn only until it goes to the background: then stopping the turn leaves it.
      const detach = new AbortController();
      const onStop = () => detach.abort();
      ctx.signal.addEventListener("abort", onStop, { once: true });
      const result = runProgram({
        file: program.file,
        args: argv.slice(1),
        cwd,
        timeoutMs: timeoutS * 1000,
        maxOutputBytes: Number(sdk.settings.get("max_output_bytes") ?? 32_000),
        signal: detach.signal,
        runs,
      }).then((r) => {
        running--;
        if (!inWorkspace) void scratch.remove(cwd);
        Object.assign(entry, { status: r.status, exitCode: r.exitCode, durationMs: r.durationMs });
        return r;
      });
      const backgroundMs = parseDuration(sdk.settings.get("background_after") ?? "10s");
      let timer: NodeJS.Timeout | undefined;
      const later = new Promise<"later">((resolve) => {
        timer = setTimeout(() => resolve("later"), backgroundMs);
      });
      const first = await Promise.race([result, later]);
      clearTimeout(timer);
      ctx.signal.removeEventListener("abort", onStop);
      if (first !== "later") return outcomeOf(first);
      void result.then((r) =>
        deliverLater(ctx.channel, `Command ${entry.id} (${command}) ended:\n${text(outcomeOf(r))}`),
      );
      return {
        status: "running",
        id: entry.id,
        note: `still running after ${backgroundMs < 1000 ? `${backgroundMs} ms` : `${Math.round(backgroundMs / 1000)} s`}; its result will be sent to the user when it ends (at most ${timeoutS} s in all)`,
      };
    };

    sdk.registerTool(
      {
        name: "cmd_run",
        description:
          "Run one program on the user's machine, without a shell (no pipes, redirections, variables or globs): `command` is split like a shell would quote it and the program is looked up in /usr/local/bin, /usr/bin and /bin. Without `workdir` it runs in a new empty folder; with `workdir` (\".\" for the workspace, or a folder in it) it runs there and the user is asked every time. Commands outside the user's allow list run only after the user approves them. Returns status, exit code, stdout and stderr (each cut at plugin.cmd.max_output_bytes).",
        parameters: {
          type: "object",
          properties: {
            command: { type: "string", description: "The command line, e.g. `uname -a` or `ls -la notes`." },
            timeout: {
              type: "integer",
              description: `Seconds before it is killed (default ${DEFAULT_TIMEOUT_S}, at most ${MAX_TIMEOUT_S}).`,
            },
            workdir: {
              type: "string",
              description:
                'Run it in the workspace: "." or a folder in it, relative to it (default: a new empty folder, where files of the workspace are not seen).',
            },
          },
          required: ["command"],
        },
      },
      run,
    );

    sdk.registerTool(
      {
        name: "cmd_history",
        description:
          "The last 100 commands run or refused, newest first: command, folder, status, exit code, duration.",
        parameters: { type: "object", properties: {} },
        noMemory: true,
      },
      () => history.list(),
    );

    sdk.onForget(({ terms, confirm }) => ({ counts: { commands: history.forget(terms, confirm) } }));
  };

  const stop = async (): Promise<void> => {
    stopped = true;
    await runs.killAll();
  };

  return definePlugin({ name: "cmd", start, stop });
}

function refusal(message: string): never {
  throw new SdkError({ code: "invalid_argument", message });
}

function timeoutOf(value: unknown): number {
  if (value === undefined || value === null || value === "") return DEFAULT_TIMEOUT_S;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 1 || n > MAX_TIMEOUT_S) {
    return refusal(`timeout is a number of seconds from 1 to ${MAX_TIMEOUT_S}`);
  }
  return Math.round(n);
}

/** What the model reads of a finished run. */
function outcomeOf(r: RunResult): Record<string, unknown> {
  return {
    status: r.status,
    exitCode: r.exitCode,
    ...(r.signal ? { signal: r.signal } : {}),
    durationMs: r.durationMs,
    stdout: r.stdout,
    stderr: r.stderr,
    ...(r.error ? { error: r.error } : {}),
  };
}

function text(outcome: Record<string, unknown>): string {
  const lines = [`status ${outcome.status}, exit code ${outcome.exitCode}, ${outcome.durationMs} ms`];
  if (outcome.stdout) lines.push(String(outcome.stdout));
  if (outcome.stderr) lines.push(`stderr:\n${String(outcome.stderr)}`);
  return lines.join("\n");
}
