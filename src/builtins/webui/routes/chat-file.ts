/**
 * POST /api/v1/chat/file: a multipart upload (field `file`, optional `message`, `client_msg_id`,
 * `device_id`) stored in the uploads folder (upload-store.ts). With a message, the message and a note
 * naming the file ("[attached file: uploads/<name> (<size>, <type>)]") go to the agent as one chat, and
 * the reply comes back with the file. A repeated client_msg_id gets the first upload's file and reply;
 * the repeat's own copy is removed so it does not count against the quota twice.
 */
import { unlink } from "node:fs/promises";
import { join } from "node:path";
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { chatRunner, chatSource, DEVICE_ID, MAX_CLIENT_MSG_ID, MAX_MESSAGE_BYTES } from "../chat-runner.js";
import { ApiError, type RouteGroup } from "../context.js";
import { type MultipartResult, multipartBoundary, readMultipart } from "../multipart.js";
import { invalid, optionalString } from "../params.js";
import { declaredType, formatBytes, safeUploadName } from "../upload-names.js";
import { UploadStore, uploadsDir } from "../upload-store.js";
import { replyJson } from "./chat.js";

/** Room for the form's own bytes (boundaries, part headers, the message) on top of the file. */
const FORM_OVERHEAD_BYTES = MAX_MESSAGE_BYTES + 64 * 1024;
const MAX_PARTS = 8;

export interface StoredFile {
  name: string;
  url: string;
  size: number;
  type: string;
}

export const chatFileRoutes: RouteGroup = (app, deps) => {
  const store = new UploadStore(uploadsDir(deps.sdk.daemonDataDir), deps.limits);
  const runner = chatRunner(deps);
  const { maxUploadBytes } = deps.limits;

  app.post("/api/v1/chat/file", async (c) => {
    const boundary = multipartBoundary(c.req.header("content-type"));
    const declared = declaredLength(c);
    if (declared !== undefined && declared > maxUploadBytes + FORM_OVERHEAD_BYTES) {
      throw new ApiError(413, "upload_too_large", `the file is over the limit of ${maxUploadBytes} bytes`);
    }
    const slot = await store.acquire(declared ?? 0);
    let form: MultipartResult;
    let file: StoredFile;
    try {
      form = await readMultipart(
        c.req.raw.body,
        boundary,
        { maxFileBytes: maxUploadBytes, maxFieldBytes: MAX_MESSAGE_BYTES, maxParts: MAX_PARTS },
        () => slot.open(),
      );
      const sent = form.file;
      if (sent?.field !== "file" || sent.filename === "") {
        throw invalid("file", "is required: send the file in a form field named file");
      }
      checkFields(form.fields);
      const name = await slot.commit(safeUploadName(sent.filename));
      file = { name, url: `/uploads/${encodeURIComponent(name)}`, size: sent.size, type: declaredType(sent.type) };
    } finally {
      await slot.release();
    }
    const message = form.fields.message?.trim() ? form.fields.message : undefined;
    if (message === undefined) return c.json({ file });
    try {
      const outcome = await runner.chat({
        source: chatSource(form.fields.device_id),
        text: `${message}\n\n[attached file: uploads/${file.name} (${formatBytes(file.size)}, ${file.type})]`,
        clientMsgId: form.fields.client_msg_id,
        fingerprint: `${message}\n${form.file?.filename}\n${file.size}`,
        meta: file,
        signal: c.req.raw.signal,
      });
      if (outcome.deduplicated) {
        await unlink(join(store.dir, file.name)).catch(() => {});
        file = outcome.meta as StoredFile;
      }
      return c.json({ file, reply: replyJson(outcome) });
    } catch (err) {
      // The file is stored even when the chat fails: the client learns both.
      if (!(err instanceof ApiError)) throw err;
      if (err.retryAfterS !== undefined) c.header("Retry-After", String(err.retryAfterS));
      return c.json({ error: { code: err.code, message: err.message }, file }, err.status as ContentfulStatusCode);
    }
  });
  return undefined;
};

function declaredLength(c: Context): number | undefined {
  const raw = c.req.header("content-length");
  return raw !== undefined && /^\d+$/.test(raw) ? Number(raw) : undefined;
}

function checkFields(fields: Record<string, string>): void {
  if (fields.message !== undefined && Buffer.byteLength(fields.message) > MAX_MESSAGE_BYTES) {
    throw new ApiError(413, "message_too_large", `message is over its limit of ${MAX_MESSAGE_BYTES} bytes`);
  }
  optionalString(fields, "client_msg_id", MAX_CLIENT_MSG_ID);
  optionalString(fields, "device_id", 64, DEVICE_ID);
}
