/**
 * `/plugins …`: the listing and usage lines against the mock SDK, then the whole path through the cli
 * socket of a real daemon with a real plugin.js under `<data>/plugins/`: list, disable, enable, reload,
 * restart (a new process), and the refusals (the cli cannot disable or restart itself; built-ins are not
 * hot-reloaded; a disabled plugin is enabled, not restarted).
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { cliSocketPath } from "@homeagent/cli-protocol";
import type { PluginInfo } from "@homeagent/sdk";
import { createMockSDK } from "@homeagent/sdk/test";
import { CliLines } from "../../../test/fixtures/homed-process.js";
import { installFixturePlugin } from "../../../test/fixtures/plugins.js";
import { tempDir } from "../../../test/fixtures/temp-dir.js";
import { type Daemon, startDaemon } from "../../daemon/bootstrap.js";
import { HELP_TEXT } from "./commands.js";
import { PLUGINS_HELP, pluginsCommand } from "./plugin-commands.js";

const base = { health: "ok", critical: false, crashes: 0, restarts: 0 } as const;
const plugins: PluginInfo[] = [
  { ...base, name: "cli", kind: "builtin", state: "running", capabilities: ["core", "io"] },
  {
    ...base,
    name: "guard",
    kind: "bin",
    version: "1.2.0",
    state: "unhealthy",
    health: "unhealthy",
    critical: true,
    crashes: 3,
    restarts: 2,
    capabilities: ["core"],
    lastError: "crashed 3 times within 5 minutes",
  },
];

test("the listing shows kind, state, health, crashes, capabilities and the last error of each plugin", async () => {
  const sdk = createMockSDK({ plugins });
  const frame = await pluginsCommand(sdk, "");
  assert.deepEqual(frame, {
    type: "response",
    content: [
      "cli [builtin]: running, health ok, crashes 0",
      "  capabilities: core, io",
      "guard [bin 1.2.0]: unhealthy, health unhealthy, crashes 3, restarts 2, critical",
      "  capabilities: core",
      "  last error: crashed 3 times within 5 minutes",
    ].join("\n"),
  });
});

test("enable, disable and reload answer what they did; malformed forms answer with their usage", async () => {
  const sdk = createMockSDK({ plugins });
  assert.deepEqual(await pluginsCommand(sdk, " disable guard"), { type: "response", content: "plugin guard disabled" });
  assert.deepEqual(await pluginsCommand(sdk, "enable guard"), {
    type: "response",
    content: "plugin guard enabled (running)",
  });
  assert.deepEqual(await pluginsCommand(sdk, "reload"), { type: "response", content: "reloaded: guard" });
  const usage = async (args: string) => {
    const frame = await pluginsCommand(sdk, args);
    return frame.type === "error" ? frame.error : frame;
  };
  assert.equal(await usage("enable"), "usage: /plugins enable <name>");
  assert.equal(await usage("disable two words"), "usage: /plugins disable <name>");
  assert.equal(await usage("reload a b"), "usage: /plugins reload [name]");
  assert.equal(await usage("restart"), "usage: /plugins restart <name>");
  assert.equal(await usage("bogus"), `usage: ${PLUGINS_HELP.join("\n")}`);
  assert.ok(HELP_TEXT.includes(PLUGINS_HELP[0]));
});

describe("/plugins over the cli socket of a real daemon", () => {
  let daemon: Daemon;
  let cli: CliLines;

  before(async () => {
    const dir = tempDir("ha-plugins-cli-");
    installFixturePlugin(dir, "echo-ts");
    daemon = await startDaemon({
      dataDir: dir,
      env: { HOMEAGENT_WEBUI_ADDR: "127.0.0.1:0" },
      ollamaUrl: "",
      logWrite: () => {},
    });
    cli = await CliLines.open(cliSocketPath(dir));
  });
  after(async () => {
    cli?.close();
    await daemon?.stop();
  });

  test("lists the built-in and the external plugin, disables, enables and reloads the external one", async () => {
    const listing = await cli.text("/plugins");
    assert.match(listing, /^cli \[builtin\]: running, health ok, crashes 0$/m);
    assert.match(listing, /^echo-ts \[js 0\.1\.0\]: running, health ok, crashes 0, pid \d+$/m);
    assert.ok(daemon.agent.tools.names().includes("echo"));

    assert.equal(await cli.text("/plugins disable echo-ts"), "plugin echo-ts disabled");
    assert.ok(!daemon.agent.tools.names().includes("echo"), "its tool is gone at once");
    assert.ok(daemon.config.isPluginDisabled("echo-ts"), "remembered");
    assert.match(await cli.text("/status"), /plugin echo-ts: disabled/);
    assert.equal(await cli.text("/plugins enable echo-ts"), "plugin echo-ts enabled (running)");
    assert.ok(daemon.agent.tools.names().includes("echo"));
    assert.equal(await cli.text("/plugins reload"), "unchanged: echo-ts");
  });

  test("restart starts an unchanged external plugin in a new process, and a built-in in place", async () => {
    const pid = () => daemon.plugins.list().find((p) => p.name === "echo-ts")?.pid;
    const before = pid();
    assert.ok(before);
    const answer = await cli.text("/plugins restart echo-ts");
    const after = pid();
    assert.ok(after && after !== before, `the same process ${before} is still running`);
    assert.equal(answer, `plugin echo-ts restarted (running, pid ${after})`);
    assert.ok(daemon.agent.tools.names().includes("echo"), "its tool is back");
    assert.equal(await cli.text("/plugins restart webui"), "plugin webui restarted (running)");
  });

  test("the cli cannot disable itself, built-ins are not reloaded, unknown names are named", async () => {
    const error = async (line: string) => {
      const frame = await cli.ask(line);
      return frame.type === "error" ? String(frame.error) : JSON.stringify(frame);
    };
    assert.match(await error("/plugins disable cli"), /plugin "cli" cannot disable itself/);
    assert.match(await error("/plugins reload cli"), /"cli" is built in, and built-ins are not hot-reloaded/);
    assert.match(await error("/plugins enable ghost"), /no plugin named "ghost"/);
    assert.match(await error("/plugins restart cli"), /plugin "cli" cannot restart itself/);
    assert.match(await error("/plugins restart ghost"), /no plugin named "ghost"/);
    await cli.text("/plugins disable echo-ts");
    assert.match(await error("/plugins restart echo-ts"), /plugin "echo-ts" is disabled; enable it to start it/);
    assert.equal(daemon.plugins.list().find((p) => p.name === "echo-ts")?.state, "disabled", "it stays disabled");
    await cli.text("/plugins enable echo-ts");
  });
});
