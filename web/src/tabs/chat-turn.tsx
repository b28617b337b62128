/**
 * One turn of the chat: the user's message and attachment (with its channel when not the dashboard's), then
 * the agent's side — reasoning folded away, a card per tool call and per approval asked, and the reply as Markdown kept up to date piece by piece (markdown-view.ts), never parsed
 * again as a whole. A reply longer than the page keeps says how much is left out and, once whole, offers
 * it as a file.
 */
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import { outcomeText } from "../approval-outcome";
import { attachedFiles, isImage } from "../attached-files";
import type { Attachment, ToolCard, Turn } from "../chat-state";
import { bytes, count } from "../format";
import { fill, type Messages, optionalMessage } from "../i18n";
import { MarkdownView } from "../markdown-view";

/** What the page's last turn offers: its reply asked again, its message edited. */
export interface TurnActions {
  again: () => void;
  edit: () => void;
}

/** A turn with versions (asked again or edited): which one shows, and how to show another. */
export interface VersionNav {
  index: number;
  count: number;
  flip: (index: number) => void;
  /** Flipping changes the version the agent remembers (the page's last turn), not only the view. */
  chooses: boolean;
  disabled: boolean;
  /** The version shown is not the one in memory. */
  notInUse: boolean;
}

export function TurnView({
  turn,
  t,
  actions,
  versions,
}: {
  turn: Turn;
  t: Messages;
  actions?: TurnActions;
  versions?: VersionNav;
}) {
  const agent = turn.state !== "done" || turn.text || turn.reasoning || turn.tools.length > 0;
  return (
    <article class="turn" aria-busy={turn.state === "pending"}>
      {turn.newTopic && <p class="topic-divider">{t.newTopicDivider}</p>}
      {(turn.input || turn.attachment) && (
        <div class="msg msg-user">
          <span class="who">{t.you}</span>
          {turn.channel && <Badge text={fill(t.viaChannel, { channel: turn.channel })} />}
          {versions && <Versions nav={versions} t={t} />}
          {turn.input && (
            <p class="plain" translate={false}>
              {turn.input}
            </p>
          )}
          {turn.attachment && <AttachmentLine file={turn.attachment} t={t} />}
          {actions && (
            <button type="button" class="copy-reply" onClick={actions.edit}>
              {t.editMessage}
            </button>
          )}
        </div>
      )}
      {agent && (
        <div class="msg msg-agent">
          <span class="who">{t.agent}</span>
          {turn.messageKind && (
            <Badge text={optionalMessage(t, `messageKind_${turn.messageKind}`) ?? turn.messageKind} />
          )}
          {!turn.input && turn.channel && <Badge text={fill(t.viaChannel, { channel: turn.channel })} />}
          {turn.reasoning && (
            <details class="reasoning">
              <summary>{t.reasoning}</summary>
              <p class="plain" translate={false}>
                {turn.reasoning}
              </p>
            </details>
          )}
          {turn.tools.map((card) => (
            <ToolView key={card.id} card={card} t={t} />
          ))}
          {turn.text ? <Reply turn={turn} /> : turn.state === "pending" && <p class="hint">{t.thinking}</p>}
          {turn.text && turn.state === "done" && <CopyReply turn={turn} t={t} />}
          {actions && (
            <button type="button" class="copy-reply" onClick={actions.again}>
              {t.askAgain}
            </button>
          )}
          {turn.omitted > 0 && <Omitted turn={turn} t={t} />}
          {turn.gap && <p class="hint">{t.replyGap}</p>}
          {turn.state === "error" && (
            <p class="error" translate={false}>
              {turn.error}
            </p>
          )}
        </div>
      )}
    </article>
  );
}

/** ‹ 1/2 ›: the versions of a turn, one a flip away from the next. */
function Versions({ nav, t }: { nav: VersionNav; t: Messages }) {
  const at = { index: nav.index + 1, count: nav.count };
  return (
    <fieldset class="versions" aria-label={fill(t.versionLabel, at)}>
      <button
        type="button"
        aria-label={t.versionPrevious}
        title={nav.chooses ? t.versionsChoose : t.versionsView}
        disabled={nav.disabled || nav.index === 0}
        onClick={() => nav.flip(nav.index - 1)}
      >
        ‹
      </button>
      <span translate={false}>
        {at.index}/{at.count}
      </span>
      <button
        type="button"
        aria-label={t.versionNext}
        title={nav.chooses ? t.versionsChoose : t.versionsView}
        disabled={nav.disabled || nav.index === nav.count - 1}
        onClick={() => nav.flip(nav.index + 1)}
      >
        ›
      </button>
      {nav.notInUse && <span class="hint">{t.versionNotInUse}</span>}
    </fieldset>
  );
}

/** The reply's Markdown; its children belong to the MarkdownView, Preact only makes the element. */
function Reply({ turn }: { turn: Turn }) {
  const element = useRef<HTMLDivElement>(null);
  const view = useRef<MarkdownView | null>(null);
  const final = turn.state !== "pending";
  useLayoutEffect(() => {
    if (!element.current) return;
    view.current ??= new MarkdownView(element.current);
    view.current.update(turn.text, turn.epoch, final);
  }, [turn.text, turn.epoch, final]);
  useEffect(() => () => view.current?.destroy(), []);
  return <div class="markdown" ref={element} translate={false} />;
}

/** Copies the reply as its Markdown source (the whole of it, when the page keeps only its start). */
function CopyReply({ turn, t }: { turn: Turn; t: Messages }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    await navigator.clipboard.writeText(turn.whole ? await turn.whole.text() : turn.text);
    setCopied(true);
  };
  return (
    <button type="button" class="copy-reply" onClick={() => void copy()} onBlur={() => setCopied(false)}>
      {copied ? t.copied : t.copyReply}
    </button>
  );
}

function Omitted({ turn, t }: { turn: Turn; t: Messages }) {
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    if (!turn.whole) return;
    const made = URL.createObjectURL(turn.whole);
    setUrl(made);
    return () => {
      URL.revokeObjectURL(made);
      setUrl(null);
    };
  }, [turn.whole]);
  return (
    <p class="hint omitted">
      {fill(t.replyOmitted, { count: count(turn.omitted, t.lang) })}{" "}
      {url ? (
        <a href={url} download={`reply-${turn.requestId ?? turn.id}.md`}>
          {t.replyDownload}
        </a>
      ) : (
        turn.state === "pending" && t.replyDownloadLater
      )}
    </p>
  );
}

function AttachmentLine({ file, t }: { file: Attachment; t: Messages }) {
  const size = ` (${typeof file.size === "number" ? bytes(file.size) : file.size})`;
  return (
    <p class="attachment">
      {t.attached}
      {t.colon}
      <span translate={false}>
        {file.url ? (
          <a href={file.url} download={file.name}>
            {file.name}
          </a>
        ) : (
          file.name
        )}
        {size}
      </span>
    </p>
  );
}

function Badge({ text }: { text: string }) {
  return (
    <span class="badge badge-muted" translate={false}>
      {text}
    </span>
  );
}

function ToolView({ card, t }: { card: ToolCard; t: Messages }) {
  if (card.kind === "interrupt") {
    return (
      <p class="interrupt">
        {t.saidWhileRunning}
        {t.colon}
        <span class="plain" translate={false}>
          {card.args}
        </span>
      </p>
    );
  }
  const status =
    card.kind === "approval"
      ? outcomeText(t, card.status ?? "waiting")
      : card.status === undefined
        ? t.toolRunning
        : (optionalMessage(t, `toolStatus_${card.status}`) ?? card.status);
  const took = card.durationMs !== undefined ? ` · ${card.durationMs} ${t.unit_ms}` : "";
  return (
    <details class="tool-card" data-status={card.status ?? "running"} data-kind={card.kind ?? "tool"}>
      <summary>
        {card.kind === "approval" ? t.approvalCard : t.tool}
        {t.colon}
        <code translate={false}>{card.name}</code> — <span>{status}</span>
        <span translate={false}>{took}</span>
      </summary>
      {card.kind !== "approval" && <h3>{t.toolArguments}</h3>}
      <pre translate={false}>{card.args}</pre>
      {card.result !== undefined && (
        <>
          <h3>{t.toolResult}</h3>
          <pre translate={false}>{card.result}</pre>
          <ResultFiles result={card.result} t={t} />
        </>
      )}
    </details>
  );
}

/** The files a tool result attached (an MCP tool's image, say): a link each, and a thumbnail for an image. */
function ResultFiles({ result, t }: { result: string; t: Messages }) {
  const files = useMemo(() => attachedFiles(result), [result]);
  if (files.length === 0) return null;
  return (
    <ul class="result-files" aria-label={t.toolFiles}>
      {files.map((file) => (
        <li key={file.name} translate={false}>
          <a href={file.url} download={file.name}>
            {isImage(file) && <img src={file.url} alt={fill(t.toolImageAlt, { name: file.name })} loading="lazy" />}
            <span>{`${file.name} (${file.size}, ${file.type})`}</span>
          </a>
        </li>
      ))}
    </ul>
  );
}
