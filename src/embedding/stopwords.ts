/**
 * Stop words removed by the shared tokenizer. Filtered in JS because @node-rs/jieba's own stop-word
 * option throws. Kept short on purpose: words that carry meaning in a personal memory (names, "home",
 * "work", numbers) must stay searchable.
 */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  [
    // English
    "a an the and or but if then else of to in on at by for with from as into onto about over under",
    "is am are was were be been being do does did doing have has had having will would shall should",
    "can could may might must i me my mine we us our ours you your yours he him his she her hers it its",
    "they them their theirs this that these those there here what which who whom whose when where why how",
    "not no nor so too very just also than such only own same other any each both few more most some all",
    "up down out off again further once s t don't doesn't didn't isn't aren't wasn't weren't",
    "i'm i've i'd i'll you're you've he's she's it's we're they're that's there's what's let's",
    // 中文
    "的 了 着 过 是 在 和 与 及 或 而 就 都 也 还 又 很 太 把 被 让 给 对 向 从 于 以 之 其",
    "这 那 这个 那个 这些 那些 这里 那里 这样 那样 什么 怎么 怎样 为什么 哪 哪里 哪个",
    "我 你 您 他 她 它 我们 你们 他们 她们 它们 自己 咱们",
    "吗 呢 吧 啊 呀 哦 嗯 哈 啦 么 嘛 呗 哇",
    "一个 一些 有些 有点 一下 一点 已经 正在 可以 能 会 要 想 应该 得 地 个 些 上 下 中 里",
    "不 没 没有 有 就是 但是 可是 因为 所以 如果 虽然 然后 而且 并且 还是 或者",
  ]
    .join(" ")
    .split(/\s+/),
);
