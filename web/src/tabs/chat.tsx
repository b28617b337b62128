/**
 * Chat: the conversation (history from memory, then live turns), replies streaming in as they are
 * written, reasoning folded away, each tool call a card that appears when it starts and fills in when it
 * ends, a stop button while a reply runs, and a file to attach. Replies are Markdown rendered through a
 * sanitizer: nothing the model writes can run.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import type { ToolCard, Turn } from "../chat-state";
import { loadHistory, send, stop, useChat } from "../chat-store";
import { ErrorLine } from "../components/status";
import { type Messages, useT } from "../i18n";
import { renderMarkdown } from "../markdown";

export function ChatTab() {
  const t = useT();
  const turns = useChat();
  const [text, setText] = useState("");
  const [file, setFile] = useState<File | null>(null);
  const [error, setError] = useState<string | null>(null);
  const fileInput = useRef<HTMLInputElement>(null);
  const logEnd = useRef<HTMLDivElement>(null);
  const running = turns.some((turn) => turn.state === "pending");

  useEffect(() => {
    loadHistory().catch((err: Error) => setError(err.message));
  }, []);
  useEffect(() => logEnd.current?.scrollIntoView({ block: "end" }), [turns]);

  const submit = (event: Event) => {
    event.preventDefault();
    const message = text.trim();
    if (!message && !file) return;
    setText("");
    setFile(null);
    if (fileInput.current) fileInput.current.value = "";
    void send(message, file ?? undefined);
  };
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) submit(event);
  };

  return (
    <div class="stack chat">
      <h1>{t.tabChat}</h1>
      <ErrorLine message={error} />
      <div class="chat-log card" role="log" aria-label={t.conversation}>
        {turns.length === 0 && <p class="hint">{t.noMessages}</p>}
        {turns.map((turn) => (
          <TurnView key={turn.id} turn={turn} t={t} />
        ))}
        <div ref={logEnd} />
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
            <button type="button" onClick={() => stop().catch((err: Error) => setError(err.message))}>
              {t.stop}
            </button>
          )}
          <button type="submit">{t.send}</button>
        </div>
      </form>
    </div>
  );
}

function TurnView({ turn, t }: { turn: Turn; t: Messages }) {
  return (
    <article class="turn" aria-busy={turn.state === "pending"}>
      <div class="msg msg-user">
        <span class="who">{t.you}</span>
        <p class="plain">{turn.input}</p>
      </div>
      <div class="msg msg-agent">
        <span class="who">{t.agent}</span>
        {turn.reasoning && (
          <details class="reasoning">
            <summary>{t.reasoning}</summary>
            <p class="plain">{turn.reasoning}</p>
          </details>
        )}
        {turn.tools.map((card) => (
          <ToolView key={card.id} card={card} t={t} />
        ))}
        {turn.text ? (
          // The HTML comes out of DOMPurify (markdown.ts).
          <div class="markdown" dangerouslySetInnerHTML={{ __html: renderMarkdown(turn.text) }} />
        ) : (
          turn.state === "pending" && <p class="hint">{t.thinking}</p>
        )}
        {turn.state === "error" && <p class="error">{turn.error}</p>}
      </div>
    </article>
  );
}

function ToolView({ card, t }: { card: ToolCard; t: Messages }) {
  const status = card.status ?? t.toolRunning;
  const took = card.durationMs !== undefined ? ` · ${card.durationMs} ms` : "";
  return (
    <details class="tool-card" data-status={card.status ?? "running"}>
      <summary>
        {t.tool}: <code>{card.name}</code> — {status}
        {took}
      </summary>
      <h3>{t.toolArguments}</h3>
      <pre>{card.args}</pre>
      {card.result !== undefined && (
        <>
          <h3>{t.toolResult}</h3>
          <pre>{card.result}</pre>
        </>
      )}
    </details>
  );
}
