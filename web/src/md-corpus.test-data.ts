/**
 * Markdown that a block-by-block render could get wrong if it cut in the wrong place: lists that go on
 * after a blank line, fences with blank lines inside, tables, quotes, reference links defined before and
 * after use, raw HTML, CRLF, blank lines made of spaces. Shared by md-blocks.test.ts and md-stream.test.ts.
 */

const para = "中文 English 混排 **bold** `code` [link](https://example.com) 一二三四五六七八九十。";

export const CORPUS: Record<string, string> = {
  paragraphs: `${para}\n\n${para}\nsame paragraph, next line\n\n\n\n${para}\n`,
  "tight and loose lists":
    "Intro:\n\n- a\n- b\n\n- c loose\n\n  continued in c\n\nAfter the list.\n\n1. one\n2. two\n\n3. three\n\n10) ten\n",
  "nested lists": "- top\n  - nested\n\n    nested paragraph\n\n  back in top\n- next\n\nend\n",
  "ordered list start": "5. five\n6. six\n\nText\n\n7. seven\n",
  "fences with blank lines":
    "```js\nconst a = 1;\n\n\nconst b = 2;\n```\n\nafter\n\n~~~\n```\nnot closed by backticks\n\n~~~~\n\n````\ncode ``` inside\n\n````\n\n``` not a fence ```\n\ntext\n",
  "unclosed fence at the end": "before\n\n```python\nprint(1)\n\nprint(2)\n",
  "fence in a list item": "1. Install:\n\n   ```bash\n   npm i\n\n   npm test\n   ```\n\n2. Run it\n\nDone.\n",
  tables:
    "| a | b |\n|---|:-:|\n| 1 | 2 |\n| 中 | 文 |\n\nafter the table\n\n| x |\n| - |\n| y |\ntext right after\n\nend\n",
  "block quotes": "> quoted\n> more\n\n> second quote\n\nnot quoted\n\n> lazy\ncontinuation\n\nend\n",
  "reference links":
    'See [the docs][docs] and [Other] and ![pic][img].\n\nMiddle [docs] again.\n\n[docs]: https://docs.example/a "Docs"\n[other]: https://other.example\n\nLater [DOCS] and [missing][nope].\n\n[docs]: https://second.example\n[img]: /uploads/pic.png\n',
  "headings and rules": "# Title\n\nSetext\n======\n\n---\n\n***\n\n- - -\n\n## Sub ##\n\ntext\n---\n\nend\n",
  "indented code": "para\n\n    code line 1\n\n    code line 2\n\nafter\n",
  "raw html as text":
    "Use `<style>` like this: <style> then more text AFTER-STYLE 中文结尾\n\n<div>\n\n<b>bold?</b>\n\n<!-- comment\n\nstill -->\n\n<script>alert(1)</script>\n",
  crlf: "line one\r\nline two\r\n\r\n- item\r\n\r\n- item 2\r\n\r\n```\r\ncode\r\n\r\n```\r\n\r\nend\r\n",
  "blank lines of spaces": "first\n   \nsecond\n\t\n- item\n  \n  more item\n \nlast\n",
  "emphasis over blank lines": "**not\n\nbold** and *a\n\nb*\n",
  "task list": "- [ ] todo\n- [x] done\n\n- [ ] loose\n",
  "hostile payloads":
    '<img src=x onerror="window.__x1=1">\n\n[js](javascript:window.__x2=1) [data](data:text/html,<script>alert(1)</script>)\n\n<svg><script>window.__x3=1</script></svg>\n\n<details open ontoggle="window.__x5=1">d</details>\n\n<math><mtext><table><mglyph><style><img src=x onerror=window.__x4=1>\n\n中文 after\n',
  "no trailing newline": "one\n\ntwo\n\n- three",
};

/** A long reply of mixed zh/en Markdown (paragraphs, lists, code, tables, quotes) of about `chars` characters. */
export function mixedReply(chars: number): string {
  const parts = [
    `${para}\n\n`,
    "## 小节 Section\n\n",
    "- 列表 item one\n- item two with `code`\n- 第三项\n\n",
    "```ts\nconst x = 1; // 注释\n\nfunction f() {\n  return x;\n}\n```\n\n",
    "| 名称 | value |\n|---|---|\n| a | 1 |\n| 乙 | 2 |\n\n",
    "> 引用 quote line\n> second line\n\n",
    `1. first\n2. second\n\n${para}\n\n`,
  ];
  let out = "";
  for (let i = 0; out.length < chars; i++) out += parts[i % parts.length];
  return out;
}
