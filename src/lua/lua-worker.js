/**
 * The thread one Lua state lives in: worker-pool.ts starts it, worker-host.ts explains why and drives it.
 * Plain JavaScript, not TypeScript: the same file then runs from src/ under tsx (tests) and from dist/
 * (production, copied there by scripts/copy-assets.mjs) with no loader inside the worker. The Lua text it
 * runs (the prelude, the json module) comes from the host in workerData, so the sandbox itself stays in one
 * typed place.
 *
 * Host → worker: {op: "load", id, name, source, label, globals, libraries, timeoutMs, httpWaitMs},
 * {op: "call", id, name, fn, args, timeoutMs, httpWaitMs}, {op: "calls", id, name, calls: [{fn, args}],
 * timeoutMs, httpWaitMs} (several calls in one round trip, answered with the array of their values; the
 * first failure ends the batch and is answered with its index), {op: "unload", name}.
 * Worker → host: {op: "ready"}, {op: "done", id, ok, value | error, timedOut, broken, index}, {op: "log", script,
 * level, message}, {op: "http", id, request}. The answer to "http" arrives on httpPort, announced by a bump of
 * httpFlag[0]: this thread is inside a Lua call then and cannot run its event loop.
 */
import { parentPort, receiveMessageOnPort, workerData } from "node:worker_threads";
import { LuaFactory } from "wasmoon";

const { prelude, jsonSource, memoryLimitBytes, httpPort, httpFlag, progress, functionMark, maxValueDepth } = workerData;

/** A returned value with more table entries than this, all its tables together, is refused. */
const MAX_VALUE_ENTRIES = 1_000_000;
/** Stack slots one level of a value needs while it is copied (key, value, and what reading them pushes). */
const SLOTS_PER_LEVEL = 8;
const LUA_TABLE = 5;

/** Log lines are posted to the host without waiting: a script must not flood its memory with them. */
const LOG_LINES_PER_CALL = 1000;
const LOG_LINE_CHARS = 8192;

/** When the running call's Lua time is up; moved on by the time spent waiting on HTTP. */
let deadline = Number.POSITIVE_INFINITY;
let expired = false;
/** The running call's bound on one HTTP wait. */
let httpWaitMs = 0;
let httpSeq = 0;
let logLines = 0;
/** Set once a request failed in a way that may have left the Lua state inconsistent; see run(). */
let broken;
/** Script name → (library name → source) it may import(). */
const libraries = new Map();

/**
 * wasmoon frees the Lua reference behind each Lua function it hands to JavaScript through a
 * FinalizationRegistry. On Node 20 a worker terminated while such a registry has cleanup pending can abort
 * the whole process (V8 asks the platform for a task runner of the isolate being torn down:
 * "NodePlatform::ForIsolate Assertion failed"), and hostile scripts are terminated mid-call by design. So
 * in this thread the registry is a sweep of WeakRefs run as registrations pile up: the same references are
 * freed, and no finalization task is ever posted.
 */
class SweptRegistry {
  #cleanup;
  #entries = [];
  #sweepAt = 1024;

  constructor(cleanup) {
    this.#cleanup = cleanup;
  }

  register(target, held, token) {
    this.#entries.push({ ref: new WeakRef(target), held, token });
    if (this.#entries.length >= this.#sweepAt) this.#sweep();
  }

  unregister(token) {
    const before = this.#entries.length;
    this.#entries = this.#entries.filter((e) => e.token === undefined || e.token !== token);
    return this.#entries.length !== before;
  }

  #sweep() {
    const live = [];
    const dead = [];
    for (const e of this.#entries) {
      if (e.ref.deref() === undefined) dead.push(e.held);
      else live.push(e);
    }
    this.#entries = live;
    this.#sweepAt = Math.max(1024, this.#entries.length * 2);
    for (const held of dead) this.#cleanup(held);
  }
}
globalThis.FinalizationRegistry = SweptRegistry;

const engine = await new LuaFactory().createEngine({
  enableProxy: false,
  injectObjects: false,
  traceAllocations: true,
});
engine.global.setMemoryMax(memoryLimitBytes);
engine.global.registerTypeExtension(2, {
  isType: (_thread, _index, type) => type === LUA_TABLE,
  getValue: (thread, index, context) => readTable(thread, index, context ?? newReadContext()),
  // null becomes nil (wasmoon's extensions fail on it). Any other object is left to wasmoon, with room made
  // for it first: wasmoon's own pushes of nested objects do not, and write past the end of the Lua stack.
  pushValue: (thread, { target }) => {
    if (target === null) {
      thread.lua.lua_pushnil(thread.address);
      return true;
    }
    if (!thread.lua.lua_checkstack(thread.address, SLOTS_PER_LEVEL)) {
      throw new Error("the value is too deep for the Lua stack");
    }
    return false;
  },
  close() {},
});
engine.global.set("__ha_expired", () => {
  if (performance.now() > deadline) expired = true;
  return expired;
});
engine.global.set("__ha_log", (script, level, message) => {
  logLines++;
  if (logLines > LOG_LINES_PER_CALL + 1) return;
  if (logLines > LOG_LINES_PER_CALL) {
    parentPort.postMessage({
      op: "log",
      script,
      level: "warn",
      message: `more than ${LOG_LINES_PER_CALL} log lines in one call; the rest of this call's are dropped`,
    });
    return;
  }
  const text =
    message.length > LOG_LINE_CHARS
      ? `${message.slice(0, LOG_LINE_CHARS)}… (cut at ${LOG_LINE_CHARS} characters)`
      : message;
  parentPort.postMessage({ op: "log", script, level, message: text });
});
engine.global.set("__ha_http", (script, method, url, body, headers) =>
  JSON.stringify(
    http({
      script,
      method: method === "POST" ? "POST" : "GET",
      url,
      body: typeof body === "string" ? body : undefined,
      headers: JSON.parse(headers),
    }),
  ),
);
engine.global.set("__ha_library", (script, lib) => libraries.get(script)?.get(lib));
engine.global.set("__ha_library_names", (script) => [...(libraries.get(script)?.keys() ?? [])].sort().join(", "));
engine.global.set("__ha_json_source", jsonSource);
const runner = engine.doStringSync(prelude);

/**
 * Hands the request to the host and sleeps until it answers. The host bounds the request by the call's
 * HTTP budget; httpWaitMs only guards against a host that never answers at all.
 */
function http(request) {
  const id = ++httpSeq;
  let seen = Atomics.load(httpFlag, 0);
  const started = performance.now();
  parentPort.postMessage({ op: "http", id, request });
  try {
    for (;;) {
      const answer = receiveMessageOnPort(httpPort)?.message;
      if (answer?.id === id) return answer.reply;
      if (answer) continue; // the answer to a request whose wait gave up earlier
      const left = started + httpWaitMs - performance.now();
      if (left <= 0) return { error: `${request.method} ${request.url}: no answer from the host` };
      Atomics.wait(httpFlag, 0, seen, left);
      seen = Atomics.load(httpFlag, 0);
    }
  } finally {
    deadline += performance.now() - started;
  }
}

function load({ name, source, label, globals, libraries: libs }) {
  const before = libraries.get(name);
  libraries.set(name, new Map(Object.entries(libs)));
  try {
    return runner.load(name, source, label, globals);
  } catch (err) {
    if (before) libraries.set(name, before);
    else libraries.delete(name);
    throw err;
  }
}

function newReadContext() {
  return { seen: new Map(), depth: 0, entries: 0 };
}

/**
 * A Lua table as a JS object or array, read like wasmoon reads it but within bounds: wasmoon's own reader
 * recurses without making room on the Lua stack, so a table nested ~25 deep wrote past its end and broke
 * the state. Here each level first makes room, and a value nested deeper than maxValueDepth or with more
 * than MAX_VALUE_ENTRIES entries is refused with an error the script's caller sees.
 */
function readTable(thread, index, context) {
  const L = thread.address;
  const lua = thread.lua;
  const at = lua.lua_absindex(L, index);
  const pointer = lua.lua_topointer(L, at);
  const known = context.seen.get(pointer);
  if (known) return known;
  if (context.depth >= maxValueDepth) {
    throw new Error(`the returned value is nested too deep (more than ${maxValueDepth} tables inside each other)`);
  }
  if (!lua.lua_checkstack(L, SLOTS_PER_LEVEL)) throw new Error("the returned value is too deep for the Lua stack");
  const keys = [];
  lua.lua_pushnil(L);
  while (lua.lua_next(L, at)) {
    keys.push(thread.indexToString(-2));
    thread.pop();
    if (++context.entries > MAX_VALUE_ENTRIES) {
      throw new Error(`the returned value has more than ${MAX_VALUE_ENTRIES} table entries`);
    }
  }
  const sequential = keys.length > 0 && keys.every((key, i) => key === String(i + 1));
  const table = sequential ? [] : {};
  context.seen.set(pointer, table);
  context.depth++;
  lua.lua_pushnil(L);
  while (lua.lua_next(L, at)) {
    const key = thread.indexToString(-2);
    const value = thread.getValue(-1, undefined, context);
    if (sequential) table.push(value);
    else table[key] = value;
    thread.pop();
  }
  context.depth--;
  return table;
}

/**
 * What Lua returned, made fit for postMessage: functions (an adapter's table holds them) become a marker
 * the host turns back into a stub, anything else that is not plain data becomes its string form.
 */
function cloneable(value, seen = new Map()) {
  if (typeof value === "function") return { [functionMark]: true };
  if (typeof value === "symbol") return String(value);
  if (value === null || typeof value !== "object") return value;
  if (seen.has(value)) return seen.get(value);
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== Array.prototype && proto !== null) return String(value);
  const out = Array.isArray(value) ? [] : {};
  seen.set(value, out);
  for (const [k, v] of Object.entries(value)) out[k] = cloneable(v, seen);
  return out;
}

// wasmoon appends the traceback of its own call thread, which only ever shows the host call.
function luaMessage(err) {
  const text = err instanceof Error ? err.message : String(err);
  return text.replace(/\s*stack traceback:[\s\S]*$/, "");
}

/** The calls of one batch in order, under one deadline; the index of the running one is in progress[0]. */
function callEach({ name, calls }) {
  const values = [];
  for (let i = 0; i < calls.length; i++) {
    Atomics.store(progress, 0, i);
    values.push(cloneable(runner.call(name, calls[i].fn, calls[i].args, calls[i].args.length)));
  }
  return values;
}

function execute(msg) {
  switch (msg.op) {
    case "load":
      return cloneable(load(msg));
    case "calls":
      return callEach(msg);
    default:
      return cloneable(runner.call(msg.name, msg.fn, msg.args, msg.args.length));
  }
}

/**
 * Lua errors reach JS as plain Errors (wasmoon builds them so), the state intact. Anything else (a wasm
 * trap such as "memory access out of bounds", an abort, a JS error from outside Lua) may have left the
 * state half-changed, so nothing more runs in it: the host terminates this worker and starts a new one.
 */
function breaksState(err) {
  return !(err instanceof Error) || err.constructor !== Error || err instanceof WebAssembly.RuntimeError;
}

function run(msg) {
  if (broken) return { op: "done", id: msg.id, ok: false, error: broken, timedOut: false, broken: true };
  expired = false;
  logLines = 0;
  httpWaitMs = msg.httpWaitMs;
  deadline = performance.now() + msg.timeoutMs;
  Atomics.store(progress, 0, 0);
  let value;
  try {
    value = execute(msg);
  } catch (err) {
    const index = msg.op === "calls" ? Atomics.load(progress, 0) : undefined;
    if (breaksState(err)) broken = luaMessage(err);
    return { op: "done", id: msg.id, ok: false, error: luaMessage(err), timedOut: expired, broken: !!broken, index };
  } finally {
    deadline = Number.POSITIVE_INFINITY;
  }
  return { op: "done", id: msg.id, ok: true, value };
}

parentPort.on("message", (msg) => {
  if (msg.op === "unload") {
    if (broken) return;
    runner.unload(msg.name);
    libraries.delete(msg.name);
    return;
  }
  parentPort.postMessage(run(msg));
});
parentPort.postMessage({ op: "ready" });
