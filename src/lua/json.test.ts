import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { LuaVM } from "./vm.js";

let vm: LuaVM;

before(async () => {
  vm = await LuaVM.create();
  await vm.loadScript(
    "j",
    `return {
      roundtrip = function(s) return json.encode(json.decode(s)) end,
      encode = function(src) return json.encode(load("return " .. src)()) end,
      decode_check = function(s, expr) local v = json.decode(s); return load("local v = ...; return " .. expr)(v) end,
    }`,
  );
});
after(() => vm.close());

const roundtrip = (s: string) => vm.call("j", "roundtrip", [s]);
const encode = (luaExpr: string) => vm.call("j", "encode", [luaExpr]);
const check = (s: string, luaExpr: string) => vm.call("j", "decode_check", [s, luaExpr]);

test("decode → encode keeps arrays, objects, key order and values", async () => {
  const text = JSON.stringify({
    z: 1,
    a: [1, 2.5, -3e-7, true, false, "x"],
    m: { nested: { deep: [{}, []] }, empty_obj: {}, empty_arr: [] },
    s: 'quote " backslash \\ newline \n tab \t ctrl \u0001 é 😀',
  });
  assert.equal(await roundtrip(text), text.replace("-3e-7", "-3e-07"));
  // Lua integers are 64-bit: ids beyond 2^53 survive the adapter untouched.
  assert.equal(await roundtrip("[9007199254740993]"), "[9007199254740993]");
});

test("null: absent inside objects, json.null inside arrays", async () => {
  assert.equal(await roundtrip('{"a":null,"b":[1,null,3]}'), '{"b":[1,null,3]}');
  assert.equal(await check('{"content":null}', 'v.content == nil and (v.content or "") == ""'), true);
  assert.equal(await check("[null]", "v[1] == json.null and #v == 1"), true);
  assert.equal(await check("null", "v == json.null"), true);
});

test("encode: unmarked tables are arrays when keyed 1..n, empty ones are objects", async () => {
  assert.equal(await encode("{1, 2, 3}"), "[1,2,3]");
  assert.equal(await encode("{}"), "{}");
  assert.equal(await encode("json.array()"), "[]");
  assert.equal(await encode("json.object({})"), "{}");
  assert.equal(await encode("{b = 1, a = 2, [3] = 'x'}"), '{"3":"x","a":2,"b":1}');
  assert.equal(await encode("{[1] = 'a', [3] = 'c'}"), '{"1":"a","3":"c"}');
  assert.equal(await encode("{x = json.null, n = 1.0, i = 7, f = 0.1}"), '{"f":0.1,"i":7,"n":1,"x":null}');
});

test("escapes and unicode", async () => {
  assert.equal(await roundtrip('"\\u00e9\\ud83d\\ude00\\/"'), '"é😀/"');
  assert.equal(await roundtrip('"\\ud800"'), '"\uFFFD"');
  assert.equal(await encode('"a\\0b\\127"'), '"a\\u0000b\\u007f"');
});

test("errors are clear", async () => {
  await assert.rejects(roundtrip('{"a":1'), /json.decode: expected ',' or '}' at position 7/);
  await assert.rejects(roundtrip("[1,]"), /json.decode: unexpected character ']'/);
  await assert.rejects(roundtrip("{} x"), /json.decode: trailing characters at position 4/);
  await assert.rejects(roundtrip(""), /json.decode: unexpected end of input/);
  await assert.rejects(roundtrip('"open'), /json.decode: unterminated string/);
  await assert.rejects(encode("{f = function() end}"), /json.encode: cannot encode a function/);
  await assert.rejects(encode("0/0"), /json.encode: cannot encode/);
  await assert.rejects(encode("(function() local t = {}; t.self = t; return t end)()"), /nesting deeper than 200/);
});
