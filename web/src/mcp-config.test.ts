/**
 * The dashboard's editing of plugin.mcp.servers: the stored shape (bare or `{"mcpServers": …}`) is kept,
 * a pasted snippet is read in either shape, masked secrets the user did not retype go back as listed (the
 * daemon restores them by place), and what the form does not show (switches, a transport type) survives.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  clashes,
  formOf,
  formProblem,
  parsePasted,
  readConfig,
  serverOf,
  withDisabled,
  withServer,
  withServers,
  withTool,
  writeConfig,
} from "./mcp-config";

const LISTED = JSON.stringify({
  mcpServers: {
    fs: { command: "npx", args: ["-y", "server-fs", "/notes"], env: { TOKEN: "****WXYZ" }, disabledTools: ["rm"] },
    web: { url: "https://example.com/mcp", headers: { Authorization: "****" }, type: "sse" },
  },
});

describe("mcp-config", () => {
  it("reads a listed value and writes it back in the shape it was stored in", () => {
    const config = readConfig(LISTED);
    assert.ok(config);
    assert.equal(config.wrapped, true);
    assert.deepEqual(JSON.parse(writeConfig(config)), JSON.parse(LISTED));
    const bare = readConfig('{"a": {"command": "x"}}');
    assert.equal(bare?.wrapped, false);
    assert.equal(
      writeConfig(withServer(bare ?? config, "b", { url: "http://h" })),
      '{"a":{"command":"x"},"b":{"url":"http://h"}}',
    );
    // An empty list is written wrapped, whose refusals name the server and field at fault.
    for (const empty of ["", "{}", '{"mcpServers": {}}'])
      assert.deepEqual(readConfig(empty), { wrapped: true, servers: {} });
    assert.equal(readConfig("[1]"), null);
  });

  it("reads a pasted snippet in either shape and says what is wrong with one it cannot", () => {
    assert.deepEqual(parsePasted('{"mcpServers": {"x": {"command": "y"}}}'), {
      wrapped: true,
      servers: { x: { command: "y" } },
    });
    assert.deepEqual(parsePasted('{"x": {"url": "http://h"}}'), {
      wrapped: false,
      servers: { x: { url: "http://h" } },
    });
    assert.deepEqual(parsePasted("{nope"), { problem: "not_json" });
    assert.deepEqual(parsePasted('{"x": 1}'), { problem: "not_servers" });
    assert.deepEqual(parsePasted('{"mcpServers": []}'), { problem: "not_servers" });
    assert.deepEqual(parsePasted("{}"), { problem: "empty" });
  });

  it("merges pasted servers, naming those that replace one of the same name", () => {
    const config = readConfig(LISTED);
    assert.ok(config);
    const pasted = { fs: { command: "other" }, git: { command: "git-mcp" } };
    assert.deepEqual(clashes(config, pasted), ["fs"]);
    const merged = withServers(config, pasted);
    assert.deepEqual(Object.keys(merged.servers), ["fs", "web", "git"]);
    assert.deepEqual(merged.servers.fs, { command: "other" });
    assert.deepEqual(Object.keys(withServer(merged, "web", undefined).servers), ["fs", "git"]);
  });

  it("switches a server and its tools off and on, leaving no empty keys", () => {
    const server = { command: "x" };
    assert.deepEqual(withDisabled(server, true), { command: "x", disabled: true });
    assert.deepEqual(withDisabled({ command: "x", disabled: true }, false), server);
    const off = withTool(withTool(server, "rm", false), "rm", false);
    assert.deepEqual(off, { command: "x", disabledTools: ["rm"] });
    assert.deepEqual(withTool(off, "rm", true), server);
  });

  it("a form keeps masked secrets not retyped, takes retyped ones, and keeps what it does not show", () => {
    const config = readConfig(LISTED);
    assert.ok(config);
    const form = formOf("fs", config.servers.fs);
    assert.deepEqual(form.env, [{ key: "TOKEN", value: "", stored: "****WXYZ" }]);
    assert.equal(form.args, "-y\nserver-fs\n/notes");
    const kept = serverOf({ ...form, cwd: " /home/me " }, config.servers.fs);
    assert.deepEqual(kept, {
      command: "npx",
      args: ["-y", "server-fs", "/notes"],
      env: { TOKEN: "****WXYZ" },
      cwd: "/home/me",
      disabledTools: ["rm"],
    });
    const retyped = serverOf({ ...form, env: [{ key: "TOKEN", value: "new-secret", stored: "****WXYZ" }] });
    assert.deepEqual(retyped.env, { TOKEN: "new-secret" });
    const web = formOf("web", config.servers.web);
    assert.equal(web.transport, "url");
    assert.deepEqual(serverOf(web, config.servers.web), {
      url: "https://example.com/mcp",
      headers: { Authorization: "****" },
      type: "sse",
    });
  });

  it("says what the form lacks before it is saved", () => {
    const form = formOf("new");
    assert.equal(formProblem(form, []), "command");
    assert.equal(formProblem({ ...form, name: "bad name" }, []), "name");
    assert.equal(formProblem({ ...form, command: "x" }, ["new"]), "name_taken");
    assert.equal(formProblem({ ...form, transport: "url", url: "ftp://x" }, []), "url");
    const row = { key: "A", value: "1" };
    assert.equal(formProblem({ ...form, command: "x", env: [row, { ...row, key: " " }] }, []), "row_name");
    assert.equal(formProblem({ ...form, command: "x", env: [row, row] }, []), "row_twice");
    assert.equal(formProblem({ ...form, command: "x", env: [row] }, []), undefined);
  });
});
