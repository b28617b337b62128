/**
 * Acceptance (issue 8): a 500-turn scripted conversation through a real Agent on a real MemorySystem, with
 * 50 facts the user tells along the way (25 English, 25 Chinese) between filler turns. The window is
 * pruned on every user turn, so almost everything ends up archived in documents; afterwards each fact is
 * found again by the tool the model would use:
 *   - `graph` facts are said in a form the distill rules read ("I work at Vestas", "我在腾讯工作"); after the
 *     distill loop they are graph relations, found in the top 5 facts of `memory_recall`;
 *   - `docs` facts are about other people or things ("my sister Mia lives in Lisbon", "我的猫叫年糕"), which
 *     no rule turns into a triple; their verbatim turn is in the top 5 documents of `doc_query`.
 * doc_query consumes what it returns (back into the window as cold_storage), so before each check a
 * short filler turn with a small window pushes everything but the newest events back into documents:
 * each fact is checked against the whole archive, not what an earlier check left over.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { startMemoryAgent } from "./fixtures/memory-system.js";

interface Fact {
  say: string;
  path: "graph" | "docs";
  query: string;
  /** Words the found fact / document must contain. */
  expect: string;
}

const FACTS: Fact[] = [
  // English, distilled into the graph by the rules.
  { say: "I live in Porto these days, close to the river.", path: "graph", query: "Porto", expect: "Porto" },
  { say: "I'm originally from Winnipeg.", path: "graph", query: "Winnipeg", expect: "Winnipeg" },
  { say: "I really like sourdough bread.", path: "graph", query: "sourdough", expect: "sourdough bread" },
  { say: "I hate cilantro.", path: "graph", query: "cilantro", expect: "cilantro" },
  { say: "I work as a cartographer.", path: "graph", query: "cartographer", expect: "cartographer" },
  { say: "I work at Vestas.", path: "graph", query: "Vestas", expect: "Vestas" },
  { say: "I love bouldering.", path: "graph", query: "bouldering", expect: "bouldering" },
  { say: "My favourite band is Radiohead.", path: "graph", query: "Radiohead", expect: "Radiohead" },
  // Chinese, distilled into the graph by the rules.
  { say: "我老家在哈尔滨。", path: "graph", query: "哈尔滨", expect: "哈尔滨" },
  { say: "我喜欢吃螺蛳粉。", path: "graph", query: "螺蛳粉", expect: "螺蛳粉" },
  { say: "我讨厌榴莲。", path: "graph", query: "榴莲", expect: "榴莲" },
  { say: "我在腾讯工作。", path: "graph", query: "腾讯", expect: "腾讯" },
  { say: "我爱打羽毛球。", path: "graph", query: "羽毛球", expect: "羽毛球" },
  { say: "我最喜欢的电影是霸王别姬。", path: "graph", query: "霸王别姬", expect: "霸王别姬" },
  { say: "我对天文学很感兴趣。", path: "graph", query: "天文学", expect: "天文学" },
  { say: "我的工作是建筑设计。", path: "graph", query: "建筑设计", expect: "建筑设计" },
  // English, found verbatim in the documents.
  { say: "My sister Mia lives in Lisbon.", path: "docs", query: "where does my sister Mia live", expect: "Lisbon" },
  { say: "Our dog is called Biscuit, he is a beagle.", path: "docs", query: "the beagle's name", expect: "Biscuit" },
  {
    say: "My wife Hannah is allergic to peanuts.",
    path: "docs",
    query: "what is Hannah allergic to",
    expect: "peanuts",
  },
  { say: "My car is a green Subaru Outback.", path: "docs", query: "which Subaru do I drive", expect: "Outback" },
  {
    say: "Our wedding anniversary is on the 14th of September.",
    path: "docs",
    query: "when is our wedding anniversary",
    expect: "14th of September",
  },
  {
    say: "My son Theo plays the cello in the school orchestra.",
    path: "docs",
    query: "Theo orchestra",
    expect: "cello",
  },
  { say: "Our landlord is Mr. Okafor.", path: "docs", query: "who is our landlord", expect: "Okafor" },
  { say: "The wifi password at the cabin is blueheron77.", path: "docs", query: "cabin wifi", expect: "blueheron77" },
  { say: "My blood type is O negative.", path: "docs", query: "my blood type", expect: "O negative" },
  {
    say: "Grandma's lasagna recipe puts nutmeg in the béchamel.",
    path: "docs",
    query: "grandma lasagna secret",
    expect: "nutmeg",
  },
  { say: "My dentist is Dr. Lindqvist on Elm Street.", path: "docs", query: "dentist", expect: "Lindqvist" },
  { say: "My best friend Rafael moved to Nairobi.", path: "docs", query: "where did Rafael move", expect: "Nairobi" },
  { say: "The spare house key is under the blue flowerpot.", path: "docs", query: "spare key", expect: "flowerpot" },
  { say: "My daughter Zoe is learning Japanese.", path: "docs", query: "language Zoe learns", expect: "Japanese" },
  {
    say: "My bike was stolen outside the library.",
    path: "docs",
    query: "where was my bike stolen",
    expect: "library",
  },
  { say: "Mum's birthday is on the 3rd of May.", path: "docs", query: "mum birthday", expect: "3rd of May" },
  { say: "My locker at the gym is number 318.", path: "docs", query: "gym locker", expect: "318" },
  // Chinese, found verbatim in the documents.
  { say: "我的猫叫年糕。", path: "docs", query: "猫叫什么名字", expect: "年糕" },
  { say: "我妹妹在柏林读研究生。", path: "docs", query: "妹妹在哪里读研究生", expect: "柏林" },
  { say: "我老公对芒果过敏。", path: "docs", query: "谁对芒果过敏", expect: "芒果过敏" },
  { say: "我的车是一辆白色的比亚迪。", path: "docs", query: "比亚迪是什么颜色", expect: "白色" },
  { say: "我儿子豆豆上小学三年级了。", path: "docs", query: "豆豆上几年级", expect: "三年级" },
  { say: "我爸爸以前是火车司机。", path: "docs", query: "爸爸以前的职业", expect: "火车司机" },
  { say: "我每周三晚上去上陶艺课。", path: "docs", query: "陶艺课", expect: "周三" },
  { say: "我的护照放在书房的抽屉里。", path: "docs", query: "护照放在哪里", expect: "书房" },
  { say: "我和老婆是在厦门认识的。", path: "docs", query: "和老婆在哪里认识", expect: "厦门" },
  { say: "奶奶做红烧肉一定要放冰糖。", path: "docs", query: "奶奶的红烧肉", expect: "冰糖" },
  { say: "我的牙医姓周，诊所在人民路。", path: "docs", query: "牙医诊所", expect: "人民路" },
  { say: "我表哥在深圳开了一家咖啡馆。", path: "docs", query: "表哥的咖啡馆", expect: "深圳" },
  { say: "我女儿的生日是十月二十号。", path: "docs", query: "女儿的生日", expect: "十月二十号" },
  { say: "上个月我把钱包丢在出租车上了。", path: "docs", query: "钱包丢在哪里", expect: "出租车" },
  { say: "邻居家的鹦鹉叫阿福。", path: "docs", query: "鹦鹉叫什么", expect: "阿福" },
  { say: "外婆家的院子里种着向日葵。", path: "docs", query: "外婆家院子", expect: "向日葵" },
  { say: "我的电脑密码提示是第一只狗的名字。", path: "docs", query: "电脑密码提示", expect: "第一只狗" },
];

const TURNS = 500;
const MAX_CONTEXT = 30;
/** Facts sit at turns 3, 12, 21 … 444: the last ones are still followed by ~50 filler turns. */
const factAt = (i: number) => 3 + 9 * i;

const EN_FILLER = [
  (n: number) => `Can you summarise chapter ${n} of the novel we talked about?`,
  (n: number) => `What is ${n} times ${n + 7}?`,
  (n: number) => `Give me a synonym for the word number ${n} on my vocabulary list.`,
  (n: number) => `How many minutes does it take to boil ${(n % 5) + 2} eggs?`,
  (n: number) => `Translate sentence ${n} of the exercise into French, please.`,
  (n: number) => `Suggest a stretching routine of ${(n % 20) + 5} minutes.`,
  (n: number) => `Is ${n} a prime number?`,
  (n: number) => `Write a haiku about autumn rain, version ${n}.`,
  (n: number) => `Convert ${n} kilometres into miles.`,
  (n: number) => `What happened in the year ${1800 + n}?`,
];
const ZH_FILLER = [
  (n: number) => `帮我算一下${n}加${n * 3}等于多少。`,
  (n: number) => `第${n}道数学题应该怎么做？`,
  (n: number) => `推荐一首适合跑步听的歌，第${n}首。`,
  (n: number) => `把这句话翻译成英文：今天是第${n}天。`,
  (n: number) => `${n}摄氏度等于多少华氏度？`,
  (n: number) => `给我讲一个关于历史的冷知识，编号${n}。`,
  (n: number) => `明天要开第${n}次周会，帮我列个提纲。`,
  (n: number) => `写一句鼓励自己的话，第${n}句。`,
];

function filler(turn: number): string {
  const pool = turn % 2 === 0 ? EN_FILLER : ZH_FILLER;
  return pool[Math.floor(turn / 2) % pool.length](turn);
}

test("500 turns with 50 facts in both languages: each fact is found again, the window stays within max_context_size", async () => {
  assert.equal(FACTS.length, 50);
  assert.equal(FACTS.filter((f) => /[\u4e00-\u9fff]/.test(f.say)).length, 25, "25 Chinese facts, 25 English");
  const h = startMemoryAgent({ contextSize: MAX_CONTEXT });
  try {
    const byTurn = new Map(FACTS.map((f, i) => [factAt(i), f]));
    let largest = 0;
    for (let turn = 0; turn < TURNS; turn++) {
      await h.say(byTurn.get(turn)?.say ?? filler(turn));
      largest = Math.max(largest, h.memory.context.size());
    }
    assert.ok(largest <= MAX_CONTEXT, `the window held ${largest} events, more than ${MAX_CONTEXT}`);
    assert.equal(h.memory.context.size(), MAX_CONTEXT);
    // Pruning archived everything else: every turn is in exactly one of the two layers.
    const archived = h.db.prepare("SELECT COUNT(*) FROM doc_turns").pluck().get() as number;
    assert.equal(archived + h.memory.context.size(), TURNS);

    const distilled = await h.memory.runLoop("distill");
    assert.match(distilled, /distill: pipeline \d+ lines → \d+ triples/);

    const misses: string[] = [];
    for (const fact of FACTS) {
      if (fact.path === "graph") {
        const r = (await h.tool("memory_recall", { query_intent: fact.query, depth: 1 })) as {
          facts: Array<{ subject: string; relation: string; object: string; sentence?: string }>;
        };
        const top = r.facts.slice(0, 5).map((f) => `${f.subject} ${f.relation} ${f.object}`);
        if (!top.some((t) => t.includes(fact.expect))) misses.push(`memory_recall "${fact.query}": ${top.join(" | ")}`);
      } else {
        // Everything but the newest events back into the documents, so this check sees the whole archive.
        h.settings.contextSize = 11;
        await h.say(filler(TURNS));
        h.settings.contextSize = MAX_CONTEXT;
        // Vectors are computed after the commit; a conversation gives them the seconds between turns. (A turn
        // whose vector is still pending can rank below vector-only near-misses: a retrieval issue, reported.)
        await h.memory.index.flush();
        assert.ok(
          !(await h.memory.context.window()).some((e) => e.input.includes(fact.expect)),
          `"${fact.say}" is no longer in the window`,
        );
        const r = (await h.tool("doc_query", { query: fact.query, top_k: 5 })) as {
          count: number;
          documents: Array<{ id: string; content: string }>;
        };
        assert.ok(r.count <= 5);
        // A long document is shown clipped; all of its turns are back in the window, where the model reads them.
        const restored = (await h.memory.context.window()).filter((e) => e.kind === "cold_storage");
        if (!restored.some((e) => e.input === fact.say)) {
          misses.push(`doc_query "${fact.query}": ${r.documents.map((d) => d.content.slice(0, 80)).join(" | ")}`);
        }
      }
    }
    assert.deepEqual(misses, [], `facts not found:\n${misses.join("\n")}`);
  } finally {
    await h.close();
  }
});
