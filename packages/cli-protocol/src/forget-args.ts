/**
 * The arguments of `/memory forget`, read one way by the cli plugin (which forgets) and by `waiter` (which
 * drops the forgotten lines from its history): two readings would let a history line outlive a forget, or
 * turn a word that merely starts like a flag (`--yesterday`) into a confirmation.
 */

export interface ForgetArgs {
  /** `--yes`: remove, rather than show what matches. */
  confirm: boolean;
  /** `--knowledge`: the knowledge base (the user's own notes) too. */
  knowledge: boolean;
  query: string;
}

/** A flag counts only as a whole word: followed by whitespace or the end. */
const FLAG = /^--(yes|knowledge)(?:\s+|$)/;

/** Flags come first, in any order; everything from the first word that is not one is the query. */
export function parseForgetArgs(args: string): ForgetArgs {
  const parsed: ForgetArgs = { confirm: false, knowledge: false, query: "" };
  let rest = args.trim();
  for (let flag = FLAG.exec(rest); flag !== null; flag = FLAG.exec(rest)) {
    if (flag[1] === "yes") parsed.confirm = true;
    else parsed.knowledge = true;
    rest = rest.slice(flag[0].length);
  }
  parsed.query = rest.trim();
  return parsed;
}
