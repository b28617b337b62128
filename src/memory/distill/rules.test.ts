import assert from "node:assert/strict";
import { test } from "node:test";
import { clauses, extractTriples, splitSpeaker } from "./rules.js";
import { chineseNumber } from "./rules-zh.js";

/** "subject|relation|object" of each triple, for compact expectations. */
const facts = (line: string) => extractTriples(line).map((t) => `${t.subject}|${t.relation}|${t.object}`);

const CASES: Array<[string, string[]]> = [
  // The architecture document's five, in Chinese.
  ["我叫小明", ["用户|姓名|小明"]],
  ["我住在北京", ["用户|居住地|北京"]],
  ["我喜欢爬山", ["用户|喜好|爬山"]],
  ["我25岁", ["用户|年龄|25岁"]],
  ["我的工作是软件工程师", ["用户|职业|软件工程师"]],
  // Chinese variants.
  ["你好，我叫王小明，我住在北京朝阳区。", ["用户|姓名|王小明", "用户|居住地|北京朝阳区"]],
  ["我的名字是李雷", ["用户|姓名|李雷"]],
  ["我今年二十五岁了", ["用户|年龄|25岁"]],
  ["我爱吃火锅", ["用户|喜好|吃火锅"]],
  ["我喜欢画画和陶艺", ["用户|喜好|画画", "用户|喜好|陶艺"]],
  ["我最喜欢的颜色是蓝色", ["用户|喜好|蓝色"]],
  ["我不喜欢香菜", ["用户|不喜欢|香菜"]],
  ["我是程序员", ["用户|职业|程序员"]],
  ["我是一名护士", ["用户|职业|护士"]],
  ["我是张伟", ["用户|姓名|张伟"]],
  ["我是上海人", ["用户|来自|上海"]],
  ["我在腾讯工作", ["用户|工作单位|腾讯"]],
  ["我搬到了深圳", ["用户|居住地|深圳"]],
  ["其实我现在住在杭州已经三年了", ["用户|居住地|杭州"]],
  // The five in English, and variants.
  ["My name is Tom", ["用户|姓名|Tom"]],
  ["I live in Paris with my wife.", ["用户|居住地|Paris"]],
  ["I like hiking and pottery", ["用户|喜好|hiking", "用户|喜好|pottery"]],
  ["I'm 25 years old", ["用户|年龄|25岁"]],
  ["I work as a nurse at the hospital", ["用户|职业|nurse"]],
  ["Hi, I'm Tom", ["用户|姓名|Tom"]],
  ["I'm called Bob and I'm 40", ["用户|姓名|Bob", "用户|年龄|40岁"]],
  ["call me Ishmael", ["用户|姓名|Ishmael"]],
  ["I love painting", ["用户|喜好|painting"]],
  ["I really enjoy reading books", ["用户|喜好|reading books"]],
  ["I'm a big fan of jazz", ["用户|喜好|jazz"]],
  ["My favorite food is sushi", ["用户|喜好|sushi"]],
  ["I don't like cilantro", ["用户|不喜欢|cilantro"]],
  ["I'm originally from Texas but I live in Ohio now", ["用户|来自|Texas", "用户|居住地|Ohio"]],
  ["I moved to New York in 2019", ["用户|居住地|New York"]],
  ["I've been living in Tokyo for 3 years", ["用户|居住地|Tokyo"]],
  ["I just turned 30!", ["用户|年龄|30岁"]],
  ["I'm a software engineer", ["用户|职业|software engineer"]],
  ["I am a teacher", ["用户|职业|teacher"]],
  ["I work at Google", ["用户|工作单位|Google"]],
  ["I work in marketing", ["用户|职业|marketing"]],
  ["Well, actually I live in Berlin.", ["用户|居住地|Berlin"]],
];

test("rules extract the documented facts and their variants, in Chinese and English", () => {
  for (const [line, expected] of CASES) assert.deepEqual(facts(line), expected, line);
});

const NOT_FACTS = [
  // Questions.
  "你知道我住在哪里吗？",
  "我叫什么？",
  "我住在北京吗",
  "Do you know where I live?",
  "I live in Paris?",
  "What do I like?",
  // Other people, other times, hypotheticals.
  "我妈妈住在上海",
  "我们住在上海",
  "他说我住在北京",
  "我3岁的时候住在上海",
  "My friend says I live in Paris",
  "I used to live in Rome",
  "If I lived in Paris I would be happy",
  "I'd love to visit Japan",
  "I would like a coffee",
  // Idioms and descriptions that look like the patterns.
  "I like to think that I'm smart",
  "I love it when it rains",
  "I love you",
  "我爱你",
  "I live in a small flat",
  "I'm 5 minutes away",
  "I'm a bit tired",
  "I'm a big deal",
  "my name is not important",
  "我是单身",
  "我是个好人",
  "我住院了",
  "我在家工作",
  "我叫了外卖",
  "I'm Tom", // a bare "I'm X" outside a greeting is too often not a name
];

test("questions, other people, hypotheticals and idioms give no facts", () => {
  for (const line of NOT_FACTS) assert.deepEqual(facts(line), [], line);
});

test("a speaker prefix names the subject; a dated transcript line keeps the speaker", () => {
  assert.deepEqual(facts("Caroline: I love painting, and I live in Boston."), [
    "Caroline|喜好|painting",
    "Caroline|居住地|Boston",
  ]);
  assert.deepEqual(facts("[1:56 pm on 8 May, 2023] Melanie: I just turned 30!"), ["Melanie|年龄|30岁"]);
  assert.deepEqual(facts("小红：我住在成都"), ["小红|居住地|成都"]);
  assert.deepEqual(facts("User: I live in Oslo"), ["用户|居住地|Oslo"], "a generic speaker is the user");
  assert.deepEqual(facts("Note: I live in Berlin"), ["用户|居住地|Berlin"], "a label is not a speaker");
  assert.deepEqual(splitSpeaker("at 10:30 I left"), { speaker: null, text: "at 10:30 I left" });
});

test("triples carry entity types and an explicit subject wins", () => {
  const [t] = extractTriples("I live in Paris", { subject: "Alice" });
  assert.deepEqual(t, {
    subject: "Alice",
    subjectType: "Person",
    relation: "居住地",
    object: "Paris",
    objectType: "Place",
  });
});

test("objects the graph would refuse are not extracted", () => {
  assert.deepEqual(facts("我喜欢猫"), [], "one character is below the graph's 2-rune minimum");
  assert.deepEqual(facts(`I like ${"a".repeat(80)}`), []);
  assert.deepEqual(facts("I'm 200 years old"), []);
});

test("clauses split at commas and at conjunctions that start a new I-clause; question marks end a clause", () => {
  assert.deepEqual(
    clauses("I live in Paris and I like jazz, do you?").map((c) => [c.text, c.question]),
    [
      ["I live in Paris", false],
      ["I like jazz", false],
      ["do you", true],
    ],
  );
  assert.deepEqual(
    clauses("I like rock and roll").map((c) => c.text),
    ["I like rock and roll"],
  );
});

test("Chinese numerals", () => {
  assert.equal(chineseNumber("二十五"), 25);
  assert.equal(chineseNumber("十八"), 18);
  assert.equal(chineseNumber("一百零二"), 102);
  assert.equal(chineseNumber("两"), 2);
  assert.equal(chineseNumber("廿"), null);
});

test("a very long line is read only to its limit and gives at most 20 triples", () => {
  const line = Array.from({ length: 400 }, (_, i) => `I like hobby${i}`).join(". ");
  const got = extractTriples(line);
  assert.equal(got.length, 20);
});
