/**
 * The knowledge base over HTTP: the tree, search, and one item by path (get, put, delete). Paths are
 * validated by the knowledge API itself (its refusal is a 400 with its reason); an item body may be up to
 * the base's 1 MiB cap, so its JSON body gets the larger editor limit.
 */
import { readJson } from "../body.js";
import { ApiError, type RouteGroup } from "../context.js";
import { MAX_EDITOR_BODY_BYTES, MAX_QUERY_CHARS } from "../limits.js";
import { intQuery, invalid, textQuery } from "../params.js";
import { sdkCall } from "../sdk-errors.js";

const MAX_PATH_CHARS = 1024;

export const knowledgeRoutes: RouteGroup = (app, { sdk }) => {
  // A tree too large to list (knowledge_tree_too_large) is the server's problem, not the request's: a 500.
  app.get("/api/v1/knowledge", async (c) => c.json({ tree: await sdkCall(() => sdk.knowledge.tree()) }));

  app.get("/api/v1/knowledge/search", async (c) => {
    const q = textQuery(c, "q", MAX_QUERY_CHARS);
    const limit = intQuery(c, "limit", 1, 50);
    return c.json({ hits: await sdkCall(() => sdk.knowledge.search(q, limit)) });
  });

  app.get("/api/v1/knowledge/item", async (c) => {
    const path = itemPath(c.req.query("path"));
    const entry = await sdkCall(() => sdk.knowledge.get(path));
    if (!entry) throw notFound(path);
    return c.json(entry);
  });

  app.put("/api/v1/knowledge/item", async (c) => {
    const path = itemPath(c.req.query("path"));
    const body = await readJson(c, MAX_EDITOR_BODY_BYTES);
    const content = body.content;
    if (typeof content !== "string") throw invalid("content", "must be a string (the item's Markdown)");
    return c.json(await sdkCall(() => sdk.knowledge.put(path, content)));
  });

  app.delete("/api/v1/knowledge/item", async (c) => {
    const path = itemPath(c.req.query("path"));
    if (!(await sdkCall(() => sdk.knowledge.delete(path)))) throw notFound(path);
    return c.json({ deleted: path });
  });
  return undefined;
};

function itemPath(value: string | undefined): string {
  if (value === undefined || value === "") {
    throw new ApiError(400, "invalid_argument", 'the query parameter "path" is required (e.g. ?path=recipes/bread)');
  }
  if (value.length > MAX_PATH_CHARS) {
    throw new ApiError(400, "invalid_argument", `the path is longer than ${MAX_PATH_CHARS} characters`);
  }
  return value;
}

function notFound(path: string): ApiError {
  return new ApiError(404, "not_found", `there is no knowledge item at ${path.slice(0, 200)}`);
}
