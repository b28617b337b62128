/**
 * What the agent asks and keeps for the dashboard: approvals (the questions waiting, the standing "always"
 * answers, the last ones asked; answering and revoking), the webui channel's inbox (what was sent while no
 * dashboard was open; read = removed), and the timers (listed and cancelled through the timer plugin's own
 * tools, run for the user). Answering and revoking take a logged-in dashboard: a client holding only the API
 * key (a script, the OpenAI endpoint) may read but never approve.
 */
import { APPROVAL_CHOICES, type ApprovalChoice } from "@homeagent/sdk";
import type { Context } from "hono";
import { readJson } from "../body.js";
import { CHAT_CHANNEL } from "../chat-runner.js";
import { ApiError, type RouteGroup, type WebEnv } from "../context.js";
import { invalid } from "../params.js";
import { sdkCall } from "../sdk-errors.js";

const RECENT = 50;
const MAX_IDS = 500;
const MAX_ID_CHARS = 64;

export const approvalsRoutes: RouteGroup = (app, { sdk, limits }) => {
  app.get("/api/v1/approvals", (c) =>
    c.json({
      pending: sdk.approvals.pending(),
      remembered: sdk.approvals.remembered(),
      recent: sdk.approvals.log(RECENT),
    }),
  );

  app.post("/api/v1/approvals/:id", async (c) => {
    userOnly(c, "answer an approval");
    const body = await readJson(c, limits.maxJsonBytes);
    const choice = body.choice;
    if (typeof choice !== "string" || !APPROVAL_CHOICES.includes(choice as ApprovalChoice)) {
      throw invalid("choice", `must be one of ${APPROVAL_CHOICES.join(", ")}`);
    }
    await sdkCall(() => sdk.approvals.answer(id(c), choice as ApprovalChoice, "dashboard"));
    return c.json({ answered: true });
  });

  app.delete("/api/v1/approvals/remembered/:id", (c) => {
    userOnly(c, "revoke an approval");
    if (!sdk.approvals.revoke(id(c))) {
      throw new ApiError(404, "not_found", "no such standing approval: GET /api/v1/approvals lists them");
    }
    return c.json({ revoked: true });
  });

  app.get("/api/v1/inbox", (c) => c.json({ messages: sdk.inbox.peek(CHAT_CHANNEL) }));

  // Read = removed: the dashboard removes what it has shown. Without ids, everything kept is removed.
  app.delete("/api/v1/inbox", async (c) => {
    const hasBody = c.req.header("content-length") !== undefined && c.req.header("content-length") !== "0";
    const body = hasBody ? await readJson(c, limits.maxJsonBytes) : {};
    const ids = body.ids === undefined ? sdk.inbox.peek(CHAT_CHANNEL).map((m) => m.id) : body.ids;
    if (!Array.isArray(ids) || ids.length > MAX_IDS || ids.some((n) => !Number.isSafeInteger(n))) {
      throw invalid("ids", `must be a list of at most ${MAX_IDS} message ids`);
    }
    return c.json({ removed: sdk.inbox.remove(CHAT_CHANNEL, ids as number[]) });
  });

  app.get("/api/v1/cmd/history", async (c) => {
    const listed = await sdkCall(() => sdk.runTool("cmd_history"));
    return c.json({ commands: JSON.parse(listed) as unknown[] });
  });

  app.get("/api/v1/timers", async (c) => {
    const listed = await sdkCall(() => sdk.runTool("timer_list"));
    return c.json({ timers: JSON.parse(listed) as unknown[] });
  });

  app.delete("/api/v1/timers/:id", async (c) => {
    const timer = Number(c.req.param("id"));
    if (!Number.isSafeInteger(timer)) throw invalid("id", "must be a timer id from GET /api/v1/timers");
    const said = await sdkCall(() => sdk.runTool("timer_cancel", { id: timer }));
    if (said.startsWith("error:")) throw new ApiError(404, "not_found", said.slice("error:".length).trim());
    return c.json({ cancelled: true });
  });
  return undefined;
};

/** Answering for the user needs the user: a logged-in dashboard, never a client that holds only the API key. */
function userOnly(c: Context<WebEnv>, what: string): void {
  if (c.get("authKind") === "session") return;
  throw new ApiError(
    403,
    "approval_refused",
    `only you can ${what}: log in to the dashboard (or use an interactive waiter); an API key cannot`,
  );
}

function id(c: Context<WebEnv>): string {
  const value = c.req.param("id") ?? "";
  if (value === "" || value.length > MAX_ID_CHARS)
    throw invalid("id", "must be an approval id from GET /api/v1/approvals");
  return value;
}
