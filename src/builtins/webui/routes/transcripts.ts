/**
 * The chat's history: `GET /api/v1/transcripts` pages backwards through what every turn of every channel
 * looked like (input, reasoning, tool calls, approvals, reply or error, and messages sent on their own),
 * newest first: `before` (an entry id) for "load earlier", `channel` for one channel, `search` for entries
 * holding every word of it. Memory's own view stays at /api/v1/memory; this is what happened.
 * `POST /api/v1/transcripts/choose` makes an earlier version of a channel's last turn (one asked again or
 * edited) the one in memory again: the chat's "‹ 1/2 ›".
 */
import { readJson } from "../body.js";
import type { RouteGroup } from "../context.js";
import { MAX_QUERY_CHARS } from "../limits.js";
import { intQuery, invalid, requiredText } from "../params.js";
import { sdkCall } from "../sdk-errors.js";

const MAX_LIMIT = 200;
const MAX_CHANNEL_CHARS = 64;

/** Request ids are the kernel's (req_…), at most 64 characters. */
const MAX_REQUEST_ID_CHARS = 64;

export const transcriptsRoutes: RouteGroup = (app, { sdk, limits }) => {
  app.get("/api/v1/transcripts", async (c) => {
    const before = intQuery(c, "before", 1, Number.MAX_SAFE_INTEGER);
    const limit = intQuery(c, "limit", 1, MAX_LIMIT, 50);
    const channel = c.req.query("channel") || undefined;
    if (channel && channel.length > MAX_CHANNEL_CHARS) {
      throw invalid("channel", `must be at most ${MAX_CHANNEL_CHARS} characters`);
    }
    const search = c.req.query("search")?.trim() || undefined;
    if (search && search.length > MAX_QUERY_CHARS)
      throw invalid("search", `must be at most ${MAX_QUERY_CHARS} characters`);
    return c.json(await sdkCall(() => sdk.transcripts.list({ before, limit, channel, search })));
  });
  app.post("/api/v1/transcripts/choose", async (c) => {
    const body = await readJson(c, limits.maxJsonBytes);
    const requestId = requiredText(body, "request_id", Number.POSITIVE_INFINITY);
    if (requestId.length > MAX_REQUEST_ID_CHARS) throw invalid("request_id", "is a request id (req_…)");
    return c.json(await sdkCall(() => sdk.transcripts.choose(requestId)));
  });
  return undefined;
};
