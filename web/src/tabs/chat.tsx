/**
 * Chat: the conversation of every channel (history from the transcript, "load earlier" going back, then
 * live turns — waiter's too, with their badge), replies streaming in as they are written (chat-turn.tsx), a
 * search of the whole history, a stop button (and Esc) while a reply runs, a file to attach, the LLM source
 * and a new topic for the next message, and the last turn asked again or edited (↑). Keys an input method
 * uses while it composes are left to it. The log keeps to its bottom while new text arrives, unless the
 * reader has scrolled up; it follows at most once per frame.
 */
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { type ShownTurn, shownTurns, type Turn } from "../chat-state";
import {
  hasEarlier,
  loadEarlier,
  loadHistory,
  replaceableTurn,
  searchHistory,
  send,
  stop,
  switchVersion,
  useChat,
} from "../chat-store";
import { memo } from "../components/memo";
import { ErrorLine } from "../components/status";
import { useApi } from "../components/use-api";
import { errorText } from "../error-text";
import { type Messages, useT } from "../i18n";
import { warmUp } from "../markdown-view";
import type { Runtime } from "../types";
import { type TurnActions, TurnView } from "./chat-turn";

/** Within this many pixels of the bottom the log counts as at the bottom, and follows new text. */
const BOTTOM_SLACK_PX = 48;

export function ChatTab() {
  const t = useT();
  const turns = useChat();
  const [text, setText] = useState("");
  const [file, setFile] = useState<File | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [query, setQuery] = useState("");
  const [llmSource, setLlmSource] = useState("");
  const [newTopic, setNewTopic] = useState(false);
  /** The last message being edited: sending it takes the place of that turn. */
  const [editing, setEditing] = useState<Turn | null>(null);
  const shown = useMemo(() => shownTurns(turns), [turns]);
  const last = replaceableTurn(shown);
  const runtime = useApi<Runtime>("/api/v1/runtime");
  const sources = runtime.data?.llm ?? [];
  const [found, setFound] = useState<Turn[] | null>(null);
  const fileInput = useRef<HTMLInputElement>(null);
  const log = useRef<HTMLDivElement>(null);
  const content = useRef<HTMLDivElement>(null);
  const follow = useRef(true);
  const [atBottom, setAtBottom] = useState(true);
  const running = turns.some((turn) => turn.state === "pending");
  /** A version of the last turn is being chosen: asking again or editing waits for it (it would be undone). */
  const [choosing, setChoosing] = useState(false);
  const choose = async (requestId: string) => {
    setChoosing(true);
    try {
      await switchVersion(requestId);
    } finally {
      setChoosing(false);
    }
  };

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
      setAtBottom(follow.current);
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
    // A message sent before the version chosen is in the window would be answered without it, and end it.
    if ((!message && !file) || choosing) return;
    setText("");
    setFile(null);
    if (fileInput.current) fileInput.current.value = "";
    follow.current = true;
    setNewTopic(false);
    const replaces = editing?.requestId ? { requestId: editing.requestId } : undefined;
    setEditing(null);
    void send(message, file ?? undefined, { llmSource: llmSource || undefined, newTopic, replaces });
  };
  const halt = () => stop().catch((err: unknown) => setError(errorText(t, err)));
  // While an input method composes (Chinese, Japanese…), its keys are its own: Enter picks, Esc cancels.
  const edit = (turn: Turn) => {
    setEditing(turn);
    setText(turn.input);
  };
  const cancelEdit = () => {
    setEditing(null);
    setText("");
  };
  const again = (turn: Turn) => {
    if (!turn.requestId) return;
    follow.current = true;
    void send(turn.input, undefined, {
      llmSource: llmSource || undefined,
      replaces: { requestId: turn.requestId },
    });
  };
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.isComposing) return;
    if (event.key === "Enter" && !event.shiftKey) submit(event);
    else if (event.key === "Escape" && running) {
      event.preventDefault();
      void halt();
    } else if (event.key === "Escape" && editing) cancelEdit();
    else if (event.key === "ArrowUp" && text === "" && last && !choosing) {
      event.preventDefault();
      edit(last);
    }
  };
  const newest = () => {
    const box = log.current;
    if (!box) return;
    follow.current = true;
    setAtBottom(true);
    box.scrollTop = box.scrollHeight;
  };
  const earlier = async () => {
    const box = log.current;
    const before = box ? box.scrollHeight - box.scrollTop : 0;
    follow.current = false;
    try {
      await loadEarlier();
    } catch (err) {
      setError(errorText(t, err));
    }
    // The page grows above what was read: the reader stays where they were.
    requestAnimationFrame(() => {
      if (box) box.scrollTop = box.scrollHeight - before;
    });
  };
  const search = (event: Event) => {
    event.preventDefault();
    const q = query.trim();
    if (!q) return setFound(null);
    searchHistory(q)
      .then(setFound)
      .catch((err: unknown) => setError(errorText(t, err)));
  };

  return (
    <div class="stack chat">
      <h1>{t.tabChat}</h1>
      <ErrorLine message={error} />
      <form class="row chat-search" onSubmit={search}>
        <label for="chat-search" class="visually-hidden">
          {t.historySearch}
        </label>
        <input
          id="chat-search"
          type="search"
          value={query}
          placeholder={t.historySearch}
          title={t.historySearchHint}
          onInput={(e) => setQuery(e.currentTarget.value)}
        />
        <button type="submit">{t.search}</button>
        {found && (
          <button
            type="button"
            onClick={() => {
              setFound(null);
              setQuery("");
            }}
          >
            {t.clearSearch}
          </button>
        )}
      </form>
      {found && (
        <section class="chat-log card" aria-label={t.historySearch}>
          {found.length === 0 && <p class="hint">{t.noMatches}</p>}
          <div class="stack chat-turns">
            {found.map((turn) => (
              <TurnView key={turn.id} turn={turn} t={t} />
            ))}
          </div>
        </section>
      )}
      <div class="chat-log card" role="log" aria-label={t.conversation} ref={log} hidden={found !== null}>
        {turns.length === 0 && <p class="hint">{t.noMessages}</p>}
        <div class="stack chat-turns" ref={content}>
          {hasEarlier() && (
            <button type="button" class="load-earlier" onClick={() => void earlier()}>
              {t.loadEarlier}
            </button>
          )}
          <p class="hint">{t.oneMemory}</p>
          {shown.map((item, i) => (
            <ShownTurnView
              key={item.versions[0].id}
              item={item}
              t={t}
              actions={
                item.turn === last && !running && !choosing
                  ? { again: () => again(item.turn), edit: () => edit(item.turn) }
                  : undefined
              }
              // The page's own last turn: flipping chooses the version the agent remembers.
              chooses={i === shown.length - 1 && !item.turn.channel}
              // Only the last turn's flip waits for a running reply: the others need not render again for it.
              running={i === shown.length - 1 && (running || choosing)}
              onChoose={choose}
              onError={(err) => setError(errorText(t, err))}
            />
          ))}
        </div>
      </div>
      <form class="chat-form" onSubmit={submit}>
        <label for="chat-message" class="visually-hidden">
          {t.message}
        </label>
        {editing && (
          <p class="hint">
            {t.editingLast}{" "}
            <button type="button" onClick={cancelEdit}>
              {t.cancelEdit}
            </button>
          </p>
        )}
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
          {sources.length > 1 && (
            <>
              <label for="chat-llm">{t.askSource}</label>
              <select id="chat-llm" value={llmSource} onChange={(e) => setLlmSource(e.currentTarget.value)}>
                <option value="">{t.askSourcePreferred}</option>
                {sources.map((s) => (
                  <option key={s.name} value={s.name} translate={false}>
                    {s.name}
                  </option>
                ))}
              </select>
            </>
          )}
          <button type="button" aria-pressed={newTopic} title={t.oneMemory} onClick={() => setNewTopic(!newTopic)}>
            {t.newTopic}
          </button>
          <span class="spacer" />
          {!atBottom && found === null && (
            <button type="button" onClick={newest}>
              {t.jumpNewest}
            </button>
          )}
          {running && (
            <button type="button" onClick={() => void halt()}>
              {t.stop}
            </button>
          )}
          <button type="submit" disabled={choosing}>
            {t.send}
          </button>
        </div>
      </form>
    </div>
  );
}

interface ShownProps {
  item: ShownTurn;
  t: Messages;
  actions?: TurnActions;
  chooses: boolean;
  /** A reply runs or a version is being chosen: flipping waits. */
  running: boolean;
  onChoose: (requestId: string) => Promise<void>;
  onError: (err: unknown) => void;
}

/** Rendered again when its turn, its versions or what it offers changed (only the last turn has actions). */
const ShownTurnView = memo(
  ShownTurnBody,
  (a: ShownProps, b: ShownProps) =>
    a.item.turn === b.item.turn &&
    a.item.versions.length === b.item.versions.length &&
    a.item.versions.every((v, i) => v === b.item.versions[i]) &&
    a.t === b.t &&
    a.actions === b.actions &&
    a.chooses === b.chooses &&
    a.running === b.running,
);

/**
 * A turn and its versions: flipping shows another one — and on the page's last turn makes it the one in
 * memory first (the daemon's next request holds only it). A version that never reached the daemon (no
 * request id) can only be looked at.
 */
function ShownTurnBody(props: ShownProps) {
  const { item, t, chooses } = props;
  /** The version looked at, when not the one in use. */
  const [viewing, setViewing] = useState<string | null>(null);
  const { versions } = item;
  const turn = versions.find((v) => v.id === viewing) ?? item.turn;
  const flip = async (index: number) => {
    const target = versions[index];
    if (!chooses || !target.requestId) return setViewing(target === item.turn ? null : target.id);
    try {
      await props.onChoose(target.requestId);
      setViewing(null);
    } catch (err) {
      props.onError(err);
    }
  };
  const nav =
    versions.length > 1
      ? {
          index: versions.indexOf(turn),
          count: versions.length,
          flip: (index: number) => void flip(index),
          chooses,
          disabled: chooses && props.running,
          notInUse: turn !== item.turn,
        }
      : undefined;
  return (
    <TurnView key={turn.id} turn={turn} t={t} actions={turn === item.turn ? props.actions : undefined} versions={nav} />
  );
}
