/**
 * Issue 18, finding 1: forget missed person traits and relation labels, and the secret reached later
 * prompts ("索引: alice smith bank pin 7391-zebra-quartz; … carol king pin is 4242-otter-mango first bank").
 * Through a real Agent and MemorySystem: a secret as a trait's value (English and Chinese), as a trait's
 * name, as a relation label and as an entity type is counted by the preview, removed by `forget --yes`, and
 * absent from the next prompt about the people — who are still remembered.
 */

import assert from "node:assert/strict";
import { test } from "node:test";
import { memoryApis } from "../src/memory/memory-api.js";
import { type MemoryHarness, startMemoryAgent } from "./fixtures/memory-system.js";

async function planted(): Promise<MemoryHarness> {
  const h = startMemoryAgent();
  h.llm.enqueue(
    {
      toolCalls: [
        { name: "person_set_trait", arguments: { name: "Alice Smith", trait: "bank pin", value: "7391-zebra-quartz" } },
        { name: "person_set_trait", arguments: { name: "Alice Smith", trait: "暗号", value: "青鸟七三九一" } },
        { name: "person_set_trait", arguments: { name: "Alice Smith", trait: "likes", value: "rye bread" } },
        { name: "person_set_trait", arguments: { name: "Bob Stone", trait: "locker 5521-heron", value: "blue" } },
        {
          name: "memory_commit",
          arguments: {
            triples: [
              { subject: "Carol King", relation: "pin is 4242-otter-mango", object: "First Bank" },
              { subject: "Carol King", relation: "works at", object: "First Bank" },
              { subject: "Dave Hill", relation: "knows", object: "Carol King", subjectType: "agent 8812-lynx" },
            ],
          },
        },
      ],
    },
    { text: "Stored." },
  );
  await h.say("Remember Alice, Bob, Carol and Dave");
  return h;
}

const nextPrompt = async (h: MemoryHarness) => {
  h.llm.enqueue({ text: "Here is what I know." });
  await h.say("What do you know about Alice Smith, Bob Stone, Carol King and Dave Hill?");
  return JSON.stringify(h.llm.requests.at(-1)?.messages).toLowerCase();
};

test("secrets in trait values, trait names, relation labels and entity types reach the prompt before forgetting", async () => {
  const h = await planted();
  try {
    const prompt = await nextPrompt(h);
    for (const s of ["7391-zebra-quartz", "青鸟七三九一", "5521-heron", "4242-otter-mango", "8812-lynx"]) {
      assert.ok(prompt.includes(s), `${s} is in the prompt's memory`);
    }
  } finally {
    await h.close();
  }
});

test("forget counts and removes each of them, and the next prompt holds none while the people stay", async () => {
  const h = await planted();
  try {
    const memory = memoryApis(h.memory).memory;
    const expect: Array<[string, Partial<Record<string, number>>]> = [
      ["7391-zebra-quartz", { traits: 1 }],
      ["青鸟七三九一", { traits: 1 }],
      ["5521-heron", { traits: 1 }],
      ["4242-OTTER-mango", { relations: 1 }],
      ["8812-lynx", { types: 1 }],
    ];
    for (const [secret, counts] of expect) {
      const preview = await memory.forget(secret, { confirm: false });
      for (const [k, n] of Object.entries(counts)) {
        assert.equal(preview.matched[k as keyof typeof preview.matched], n, `${secret}: ${k}`);
      }
      const done = await memory.forget(secret, { confirm: true });
      for (const [k, n] of Object.entries(counts)) {
        assert.equal(done.removed[k as keyof typeof done.removed], n, `${secret}: ${k} removed`);
      }
    }
    const rows = h.db
      .prepare("SELECT trait || ' ' || value FROM person_traits ORDER BY trait")
      .pluck()
      .all() as string[];
    assert.deepEqual(rows, ["likes rye bread"], "only the trait that held no secret stays");
    const prompt = await nextPrompt(h);
    for (const s of ["7391-zebra-quartz", "青鸟七三九一", "5521-heron", "4242-otter-mango", "8812-lynx"]) {
      assert.ok(!prompt.includes(s), `${s} reached the prompt after forgetting`);
    }
    for (const kept of ["alice smith", "rye bread", "carol king works at first bank", "dave hill"]) {
      assert.ok(prompt.includes(kept), `${kept} is still remembered`);
    }
  } finally {
    await h.close();
  }
});
