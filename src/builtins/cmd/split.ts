/**
 * A command line split into a program and its arguments the way a POSIX shell would quote them — single
 * quotes, double quotes (with \" \\ \$ \` escapes), backslash outside quotes — and nothing else: there is no
 * shell, so no variables, globs, pipes, redirections or `;`. An unquoted operator is refused with that said,
 * rather than passed on as an argument the model did not mean.
 */

import { SdkError } from "@homeagent/sdk";

/** A command line that cannot be run as written; the message says how to write it. */
export class SplitError extends SdkError {
  constructor(message: string) {
    super({ code: "invalid_argument", message });
  }
}

/** Unquoted, these mean something to a shell and nothing here. */
const OPERATORS = new Set(["|", "||", "&", "&&", ";", ";;", ">", ">>", "<", "<<", "2>", "2>&1", "&>", "|&"]);
const MAX_ARGS = 256;

export function splitCommand(line: string): string[] {
  if (line.includes("\u0000")) throw new SplitError("a command cannot hold a NUL character");
  const words: string[] = [];
  let word = "";
  let inWord = false;
  let quote: "'" | '"' | null = null;
  let quotedWord = false;
  const end = () => {
    if (!inWord) return;
    if (!quotedWord && OPERATORS.has(word)) {
      throw new SplitError(
        `"${word}" is a shell operator, and commands run without a shell: run one program at a time (no pipes, redirections, ; or &&)`,
      );
    }
    if (!quotedWord && /^\$|`/.test(word)) {
      throw new SplitError(
        `"${word}" needs a shell (variables and command substitution are not expanded); write the value itself`,
      );
    }
    words.push(word);
    if (words.length > MAX_ARGS) throw new SplitError(`a command has at most ${MAX_ARGS} words`);
    word = "";
    inWord = false;
    quotedWord = false;
  };
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote === "'") {
      if (c === "'") quote = null;
      else word += c;
      continue;
    }
    if (quote === '"') {
      if (c === '"') quote = null;
      else if (c === "\\" && i + 1 < line.length && '"\\$`'.includes(line[i + 1])) word += line[++i];
      else word += c;
      continue;
    }
    if (c === "'" || c === '"') {
      quote = c;
      inWord = true;
      quotedWord = true;
    } else if (c === "\\") {
      if (i + 1 < line.length) word += line[++i];
      inWord = true;
      quotedWord = true;
    } else if (c === "\n" || c === "\r") {
      // A shell would end the command here and run the next line: refused rather than read as a space.
      throw new SplitError("a command is one line: run one program at a time");
    } else if (c === "#" && !inWord) {
      // A shell would drop the rest as a comment; the user approving it might read it so too.
      throw new SplitError(`an unquoted # starts a comment in a shell; quote it ("#") if it is meant as text`);
    } else if (/\s/.test(c)) {
      end();
    } else {
      word += c;
      inWord = true;
    }
  }
  if (quote) throw new SplitError(`the command has an unclosed ${quote === "'" ? "single" : "double"} quote`);
  end();
  if (words.length === 0) throw new SplitError("the command is empty");
  return words;
}
