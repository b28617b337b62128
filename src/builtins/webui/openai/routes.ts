/**
 * The OpenAI-compatible endpoint: `POST /v1/chat/completions` (streaming or not) and `GET /v1/models`, so
 * any program that speaks OpenAI's API can talk to the agent with base URL `<web UI>/v1` and the daemon's
 * API key. There is one model, "homeagent": whatever `model` a request names is accepted and answered as
 * it (the daemon's own LLM settings decide which provider runs). Errors are OpenAI-shaped; the auth
 * middleware in front answers 401 before a request gets here.
 */
import type { Context } from "hono";
import { readJson } from "../body.js";
import type { RouteGroup, WebDeps, WebEnv } from "../context.js";
import { MODEL_ID } from "./chunks.js";
import { completeOnce } from "./complete.js";
import { DeltaRouter } from "./delta-router.js";
import { toOpenAIError } from "./errors.js";
import { parseCompletionRequest } from "./request.js";
import { streamCompletion } from "./stream.js";

export const openaiRoutes: RouteGroup = (app, deps) => {
  const router = new DeltaRouter();
  const unsubscribe = deps.sdk.subscribe("*", router.handle);
  app.post("/v1/chat/completions", async (c) => {
    try {
      const request = parseCompletionRequest(await readJson(c, deps.limits.maxJsonBytes));
      return request.stream
        ? await streamCompletion(c, deps, router, request)
        : await completeOnce(c, deps, router, request);
    } catch (err) {
      return errorResponse(c, deps, err);
    }
  });
  app.get("/v1/models", (c) =>
    c.json({
      object: "list",
      data: [{ id: MODEL_ID, object: "model", created: Math.floor(deps.startedAt / 1000), owned_by: "homeagent" }],
    }),
  );
  return unsubscribe;
};

function errorResponse(c: Context<WebEnv>, deps: WebDeps, err: unknown): Response {
  const { status, body, retryAfterS } = toOpenAIError(err, deps.sdk.log);
  if (retryAfterS !== undefined) c.header("Retry-After", String(retryAfterS));
  return c.json(body, status);
}
