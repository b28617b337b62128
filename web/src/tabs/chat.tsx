/**
 * Chat: the conversation (history from memory, then live turns), replies streaming in as they are
 * written (chat-turn.tsx), a stop button while a reply runs, and a file to attach. The log keeps to its
 * bottom while new text arrives, unless the reader has scrolled up; it follows at most once per frame.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { loadHistory, send, stop, useChat } from "../chat-store";
import { ErrorLine } from "../components/status";
import { errorText } from "../error-text";
import { useT } from "../i18n";
import { warmUp } from "../markdown-view";
import { TurnView } from "./chat-turn";

/** Within this many pixels of the bottom the log counts as at the bottom, and follows new text. */
const BOTTOM_SLACK_PX = 48;

export function ChatTab() {
  const t = useT();
  const turns = useChat();
  const [text, setText] = useState("");
  const [file, setFile] = useState<File | null>(null);
  const [error, setError] = useState<string | null>(null);
  const fileInput = useRef<HTMLInputElement>(null);
  const log = useRef<HTMLDivElement>(null);
  const content = useRef<HTMLDivElement>(null);
  const follow = useRef(true);
  const running = turns.some((turn) => turn.state === "pending");

  useEffect(() => {
    loadHistory().catch((err: unknown) => setError(errorText(t, err)));
    warmUp();
  }, []);
  useEffect(() => {
    const box = log.current;
    const inner = content.current;
    if (!box || !inner) return;
    const onScroll = () => {
      follow.current = box.scrollHeight - box.scrollTop - box.clientHeight < BOTTOM_SLACK_PX;
    };
    // Called at most once per frame, after layout: the cheapest moment to read and set the scroll.
    const observer = new ResizeObserver(() => {
      if (follow.current) box.scrollTop = box.scrollHeight;
    });
    box.addEventListener("scroll", onScroll, { passive: true });
    observer.observe(inner);
    return () => {
      observer.disconnect();
      box.removeEventListener("scroll", onScroll);
    };
  }, []);

  const submit = (event: Event) => {
    event.preventDefault();
    const message = text.trim();
    if (!message && !file) return;
    setText("");
    setFile(null);
    if (fileInput.current) fileInput.current.value = "";
    follow.current = true;
    void send(message, file ?? undefined);
  };
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) submit(event);
  };

  return (
    <div class="stack chat">
      <h1>{t.tabChat}</h1>
      <ErrorLine message={error} />
      <div class="chat-log card" role="log" aria-label={t.conversation} ref={log}>
        {turns.length === 0 && <p class="hint">{t.noMessages}</p>}
        <div class="stack chat-turns" ref={content}>
          {turns.map((turn) => (
            <TurnView key={turn.id} turn={turn} t={t} />
          ))}
        </div>
      </div>
      <form class="chat-form" onSubmit={submit}>
        <label for="chat-message" class="visually-hidden">
          {t.message}
        </label>
        <textarea
          id="chat-message"
          rows={3}
          value={text}
          placeholder={t.message}
          onInput={(e) => setText(e.currentTarget.value)}
          onKeyDown={onKeyDown}
        />
        <div class="row">
          <label for="chat-file">{t.attach}</label>
          <input
            id="chat-file"
            ref={fileInput}
            type="file"
            onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)}
          />
          <span class="spacer" />
          {running && (
            <button type="button" onClick={() => stop().catch((err: unknown) => setError(errorText(t, err)))}>
              {t.stop}
            </button>
          )}
          <button type="submit">{t.send}</button>
        </div>
      </form>
    </div>
  );
}
