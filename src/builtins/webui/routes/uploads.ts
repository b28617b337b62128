/**
 * GET /uploads/:name: a file of the uploads folder, always as a download (Content-Disposition
 * attachment, nosniff, a sandboxing CSP), typed application/octet-stream unless its name says it is a safe
 * image, audio or video type. Only names chat/file could have stored are served: no path separators, no
 * dot files (the temporary ones included), and no symlinks (opened with O_NOFOLLOW, regular files only).
 */
import { constants, createReadStream } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import { join } from "node:path";
import { Readable } from "node:stream";
import { ApiError, type RouteGroup } from "../context.js";
import { attachmentDisposition, safeUploadName, servedType } from "../upload-names.js";
import { uploadsDir } from "../upload-store.js";

export const uploadsRoutes: RouteGroup = (app, deps) => {
  const dir = uploadsDir(deps.sdk.daemonDataDir);

  app.get("/uploads/:name", async (c) => {
    const name = c.req.param("name");
    if (safeUploadName(name) !== name) throw notFound();
    let handle: FileHandle;
    try {
      handle = await open(join(dir, name), constants.O_RDONLY | constants.O_NOFOLLOW);
    } catch {
      throw notFound();
    }
    const st = await handle.stat();
    if (!st.isFile()) {
      await handle.close();
      throw notFound();
    }
    const body = Readable.toWeb(createReadStream("", { fd: handle })) as ReadableStream<Uint8Array>;
    return new Response(body, {
      status: 200,
      headers: {
        "Content-Type": servedType(name),
        "Content-Length": String(st.size),
        "Content-Disposition": attachmentDisposition(name),
        "X-Content-Type-Options": "nosniff",
        "Content-Security-Policy": "default-src 'none'; sandbox",
        "Cache-Control": "private, max-age=3600",
      },
    });
  });
  return undefined;
};

function notFound(): ApiError {
  return new ApiError(404, "not_found", "there is no such upload");
}
